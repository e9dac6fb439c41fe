#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "picture.h"

#define VMAF_MAX_DIMENSION (1u << 15)

int vmaf_picture_layout(VmafPictureLayout *layout, enum VmafPixelFormat pix_fmt,
                        unsigned bpc, unsigned w, unsigned h)
{
    if (!layout) return -EINVAL;
    if (bpc < 8 || bpc > 16) return -EINVAL;
    if (!w || !h || w > VMAF_MAX_DIMENSION || h > VMAF_MAX_DIMENSION) return -EINVAL;

    unsigned ss_x, ss_y, planes = 3;
    switch (pix_fmt) {
    case VMAF_PIX_FMT_YUV420P: ss_x = 1; ss_y = 1; break;
    case VMAF_PIX_FMT_YUV422P: ss_x = 1; ss_y = 0; break;
    case VMAF_PIX_FMT_YUV444P: ss_x = 0; ss_y = 0; break;
    case VMAF_PIX_FMT_YUV400P: ss_x = 0; ss_y = 0; planes = 1; break;
    default: return -EINVAL;
    }

    memset(layout, 0, sizeof(*layout));
    const unsigned bytes = bpc > 8 ? 2 : 1;
    size_t size = 0;
    for (unsigned p = 0; p < planes; p++) {
        layout->w[p] = p ? w >> ss_x : w;
        layout->h[p] = p ? h >> ss_y : h;
        layout->stride[p] = (ptrdiff_t)(((layout->w[p] + 31u) & ~31u) * bytes);
        layout->offset[p] = size;
        size += (size_t)layout->stride[p] * layout->h[p];
    }
    layout->size = size;
    return 0;
}

int vmaf_picture_wrap(VmafPicture *pic, enum VmafPixelFormat pix_fmt, unsigned bpc,
                      unsigned w, unsigned h, void *buf, enum VmafPictureMemory memory,
                      void (*release)(void *cookie, void *buf), void *cookie)
{
    if (!pic || !buf) return -EINVAL;
    VmafPictureLayout layout;
    int err = vmaf_picture_layout(&layout, pix_fmt, bpc, w, h);
    if (err) return err;

    VmafRef *ref = malloc(sizeof(*ref));
    VmafPicturePrivate *priv = malloc(sizeof(*priv));
    if (!ref || !priv) {
        free(ref);
        free(priv);
        return -ENOMEM;
    }
    atomic_init(&ref->cnt, 1);
    *priv = (VmafPicturePrivate){
        .buf = buf, .memory = memory, .release = release, .cookie = cookie,
    };
    atomic_init(&priv->side, NULL);

    memset(pic, 0, sizeof(*pic));
    pic->pix_fmt = pix_fmt;
    pic->bpc = bpc;
    for (unsigned p = 0; p < 3; p++) {
        pic->w[p] = layout.w[p];
        pic->h[p] = layout.h[p];
        pic->stride[p] = layout.stride[p];
        pic->data[p] = layout.h[p] ? (uint8_t *)buf + layout.offset[p] : NULL;
    }
    pic->ref = ref;
    pic->priv = priv;
    return 0;
}

VMAF_EXPORT int vmaf_picture_alloc(VmafPicture *pic, enum VmafPixelFormat pix_fmt, unsigned bpc,
                       unsigned w, unsigned h)
{
    if (!pic) return -EINVAL;
    VmafPictureLayout layout;
    int err = vmaf_picture_layout(&layout, pix_fmt, bpc, w, h);
    if (err) return err;

    const size_t size = (layout.size + 31) & ~(size_t)31;
    void *buf = aligned_alloc(32, size);
    if (!buf) return -ENOMEM;
    memset(buf, 0, size);
    err = vmaf_picture_wrap(pic, pix_fmt, bpc, w, h, buf, VMAF_PICTURE_MEMORY_HOST, NULL, NULL);
    if (err) free(buf);
    return err;
}

enum VmafPictureMemory vmaf_picture_memory(const VmafPicture *pic)
{
    return ((const VmafPicturePrivate *)pic->priv)->memory;
}

void vmaf_picture_mark_range_checked(VmafPicture *pic)
{
    if (pic && pic->priv) ((VmafPicturePrivate *)pic->priv)->range_checked = true;
}

bool vmaf_picture_range_checked(const VmafPicture *pic)
{
    return ((const VmafPicturePrivate *)pic->priv)->range_checked;
}

int vmaf_picture_prepare_planes(const VmafPicture *pic, bool luma_only)
{
    if (!pic || !pic->priv) return -EINVAL;
    const VmafPicturePrivate *priv = pic->priv;
    if (!priv->prepare) return 0;
    /* luma only: the bytes from the buffer's start to the end of plane 0 */
    const size_t len = !luma_only ? SIZE_MAX
                                  : (size_t)((const unsigned char *)pic->data[0] -
                                             (const unsigned char *)priv->buf) +
                                        (size_t)pic->stride[0] * pic->h[0];
    return priv->prepare(priv->cookie, priv->buf, len);
}

int vmaf_picture_prepare(const VmafPicture *pic)
{
    return vmaf_picture_prepare_planes(pic, false);
}

void vmaf_picture_ref(VmafPicture *dst, const VmafPicture *src)
{
    atomic_fetch_add(&src->ref->cnt, 1);
    *dst = *src;
}

/* ---- side products (picture.h) ---------------------------------------------------------- */

enum { SIDE_KEY_LEN = 64 };

typedef struct StoreBlock {
    struct StoreBlock *next;
    void *mem;
    size_t size;
} StoreBlock;

/* A kind of product (a key): its blocks handed out. */
typedef struct StoreKind {
    struct StoreKind *next;
    char key[SIDE_KEY_LEN];
    unsigned out;
} StoreKind;

struct VmafSideStore {
    atomic_int refs;
    pthread_mutex_t lock;
    StoreBlock *free_blocks; /* released, for the next product of their size */
    StoreKind *kinds;        /* the keys asked for so far */
    unsigned n_kinds;
    unsigned held;           /* blocks handed out and free ones */
    unsigned max;            /* most blocks out per kind (0: no limit) */
};

int vmaf_side_store_create(VmafSideStore **store, unsigned max_blocks)
{
    if (!store) return -EINVAL;
    VmafSideStore *s = calloc(1, sizeof(*s));
    if (!s) return -ENOMEM;
    if (pthread_mutex_init(&s->lock, NULL)) {
        free(s);
        return -ENOMEM;
    }
    atomic_init(&s->refs, 1);
    s->max = max_blocks;
    *store = s;
    return 0;
}

void vmaf_side_store_unref(VmafSideStore *s)
{
    if (!s || atomic_fetch_sub(&s->refs, 1) != 1) return;
    for (StoreBlock *b = s->free_blocks, *next; b; b = next) {
        next = b->next;
        free(b->mem);
        free(b);
    }
    for (StoreKind *k = s->kinds, *next; k; k = next) {
        next = k->next;
        free(k);
    }
    pthread_mutex_destroy(&s->lock);
    free(s);
}

/* The kind of key (made on first use; NULL without memory). Under the store's lock. */
static StoreKind *store_kind(VmafSideStore *s, const char *key)
{
    for (StoreKind *k = s->kinds; k; k = k->next)
        if (!strcmp(k->key, key)) return k;
    StoreKind *k = calloc(1, sizeof(*k));
    if (!k) return NULL;
    strcpy(k->key, key); /* shorter than SIDE_KEY_LEN: checked by the get */
    k->next = s->kinds;
    s->kinds = k;
    s->n_kinds++;
    return k;
}

/* size bytes (a multiple of 64), 64-byte aligned, for a product of key: a released block
 * of that size, or new; NULL when the store has max blocks of key out (or no memory). At
 * most max blocks per kind are held, out and free together: beyond that a free block of
 * another size makes room. */
static void *store_take(VmafSideStore *s, const char *key, size_t size)
{
    if (!s) return aligned_alloc(64, size);
    pthread_mutex_lock(&s->lock);
    void *mem = NULL;
    StoreKind *kind = store_kind(s, key);
    if (!kind || (s->max && kind->out >= s->max)) goto done;
    for (StoreBlock **p = &s->free_blocks; *p; p = &(*p)->next) {
        StoreBlock *b = *p;
        if (b->size != size) continue;
        *p = b->next;
        mem = b->mem;
        free(b);
        kind->out++;
        goto done;
    }
    if (s->max && s->held >= s->max * s->n_kinds && s->free_blocks) {
        StoreBlock *b = s->free_blocks;
        s->free_blocks = b->next;
        free(b->mem);
        free(b);
        s->held--;
    }
    mem = aligned_alloc(64, size);
    if (mem) {
        kind->out++;
        s->held++;
    }
done:
    pthread_mutex_unlock(&s->lock);
    return mem;
}

static void store_give(VmafSideStore *s, const char *key, void *mem, size_t size)
{
    if (!mem) return;
    if (!s) {
        free(mem);
        return;
    }
    StoreBlock *b = malloc(sizeof(*b));
    pthread_mutex_lock(&s->lock);
    for (StoreKind *k = s->kinds; k; k = k->next)
        if (!strcmp(k->key, key)) {
            k->out--;
            break;
        }
    if (b) {
        *b = (StoreBlock){ .mem = mem, .size = size, .next = s->free_blocks };
        s->free_blocks = b;
    } else {
        s->held--;
    }
    pthread_mutex_unlock(&s->lock);
    if (!b) free(mem); /* no memory to keep it */
}

typedef struct SideEntry {
    struct SideEntry *next;
    char key[SIDE_KEY_LEN];
    void *data;     /* NULL while computing, or after the early release */
    size_t size;    /* of data's block */
    bool computing; /* a caller computes it: the others wait */
    unsigned users; /* gets not yet put */
    unsigned puts;
} SideEntry;

typedef struct VmafPictureSide {
    pthread_mutex_t lock;
    pthread_cond_t done; /* an entry's computation ended */
    SideEntry *entry;
    unsigned made; /* computations that succeeded */
} VmafPictureSide;

static void side_free(VmafPictureSide *side, VmafSideStore *store)
{
    if (!side) return;
    for (SideEntry *e = side->entry, *next; e; e = next) {
        next = e->next;
        store_give(store, e->key, e->data, e->size);
        free(e);
    }
    pthread_cond_destroy(&side->done);
    pthread_mutex_destroy(&side->lock);
    free(side);
}

/* The picture's side table, made by the first caller (a losing racer frees its own). */
static VmafPictureSide *side_of(const VmafPicture *pic)
{
    VmafPicturePrivate *priv = pic->priv;
    VmafPictureSide *side = atomic_load(&priv->side);
    if (side) return side;
    side = calloc(1, sizeof(*side));
    if (!side) return NULL;
    if (pthread_mutex_init(&side->lock, NULL)) {
        free(side);
        return NULL;
    }
    if (pthread_cond_init(&side->done, NULL)) {
        pthread_mutex_destroy(&side->lock);
        free(side);
        return NULL;
    }
    VmafPictureSide *expected = NULL;
    if (atomic_compare_exchange_strong(&priv->side, &expected, side)) return side;
    side_free(side, NULL);
    return expected;
}

void vmaf_picture_set_readers(VmafPicture *pic, unsigned n, VmafSideStore *store)
{
    if (!pic || !pic->priv) return;
    VmafPicturePrivate *priv = pic->priv;
    priv->readers = n;
    if (store) atomic_fetch_add(&store->refs, 1);
    vmaf_side_store_unref(priv->store);
    priv->store = store;
}

unsigned vmaf_picture_readers(const VmafPicture *pic)
{
    return pic && pic->priv ? ((const VmafPicturePrivate *)pic->priv)->readers : 0;
}

int vmaf_picture_side_get(const VmafPicture *pic, const char *key, size_t size,
                          VmafPictureSideFn compute, void *arg, const void **data)
{
    if (!pic || !pic->priv || !key || strlen(key) >= SIDE_KEY_LEN || !size || !compute ||
        !data)
        return -EINVAL;
    VmafPictureSide *side = side_of(pic);
    if (!side) return -ENOMEM;

    pthread_mutex_lock(&side->lock);
    SideEntry *e;
    for (;;) {
        for (e = side->entry; e && strcmp(e->key, key); e = e->next) {}
        if (!e || !e->computing) break;
        pthread_cond_wait(&side->done, &side->lock);
    }
    if (e && e->data) {
        e->users++;
        *data = e->data;
        pthread_mutex_unlock(&side->lock);
        return 0;
    }
    if (!e) { /* first of this key */
        e = calloc(1, sizeof(*e));
        if (!e) {
            pthread_mutex_unlock(&side->lock);
            return -ENOMEM;
        }
        strcpy(e->key, key);
        e->next = side->entry;
        side->entry = e;
    }
    e->computing = true; /* new, or released early and asked for again */
    pthread_mutex_unlock(&side->lock);

    const VmafPicturePrivate *priv = pic->priv;
    const size_t block = (size + 63) & ~(size_t)63;
    void *mem = store_take(priv->store, key, block);
    int err = mem ? compute(mem, size, arg) : -ENOMEM;
    if (err) {
        store_give(priv->store, key, mem, block);
        mem = NULL;
    }

    pthread_mutex_lock(&side->lock);
    e->computing = false;
    e->data = mem; /* on failure NULL: a waiter computes it itself */
    e->size = block;
    if (!err) {
        e->users++;
        side->made++;
    }
    pthread_cond_broadcast(&side->done);
    pthread_mutex_unlock(&side->lock);
    if (!err) *data = mem;
    return err;
}

bool vmaf_picture_side_busy(const VmafPicture *pic, const char *key)
{
    VmafPictureSide *side = pic && pic->priv && key
                                ? atomic_load(&((VmafPicturePrivate *)pic->priv)->side)
                                : NULL;
    if (!side) return false;
    pthread_mutex_lock(&side->lock);
    const SideEntry *e = side->entry;
    while (e && strcmp(e->key, key)) e = e->next;
    const bool busy = e && e->computing;
    pthread_mutex_unlock(&side->lock);
    return busy;
}

int vmaf_picture_side_acquire(const VmafPicture *pic, const char *key, size_t size,
                              VmafPictureSideFn compute, void *arg, bool nowait,
                              const void **data)
{
    if (!vmaf_picture_side_shared(pic)) return -ENOENT;
    if (nowait && vmaf_picture_side_busy(pic, key)) return -EAGAIN;
    return vmaf_picture_side_get(pic, key, size, compute, arg, data);
}

void vmaf_picture_side_put(const VmafPicture *pic, const void *data)
{
    if (!pic || !pic->priv || !data) return;
    const VmafPicturePrivate *priv = pic->priv;
    VmafPictureSide *side = atomic_load(&priv->side);
    if (!side) return;
    pthread_mutex_lock(&side->lock);
    for (SideEntry *e = side->entry; e; e = e->next) {
        if (e->data != data) continue;
        e->puts++;
        e->users--;
        if (!e->users && e->puts >= priv->readers) { /* every reader is done with it */
            store_give(priv->store, e->key, e->data, e->size);
            e->data = NULL;
        }
        break;
    }
    pthread_mutex_unlock(&side->lock);
}

unsigned vmaf_picture_side_made(const VmafPicture *pic)
{
    VmafPictureSide *side = pic && pic->priv
                                ? atomic_load(&((VmafPicturePrivate *)pic->priv)->side)
                                : NULL;
    if (!side) return 0;
    pthread_mutex_lock(&side->lock);
    const unsigned n = side->made;
    pthread_mutex_unlock(&side->lock);
    return n;
}

VMAF_EXPORT int vmaf_picture_unref(VmafPicture *pic)
{
    if (!pic || !pic->ref || !pic->priv) return -EINVAL;
    if (atomic_fetch_sub(&pic->ref->cnt, 1) == 1) {
        VmafPicturePrivate *priv = pic->priv;
        side_free(atomic_load(&priv->side), priv->store);
        vmaf_side_store_unref(priv->store);
        if (priv->release) priv->release(priv->cookie, priv->buf);
        else free(priv->buf);
        free(priv);
        free(pic->ref);
    }
    memset(pic, 0, sizeof(*pic));
    return 0;
}
