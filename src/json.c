#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

#define JSON_MAX_DEPTH 64

typedef struct Parser {
    const char *s, *end;
    const char *start;
    char *err;
    size_t err_sz;
    int failed;
    const char *stream_key; /* the top-level object's array whose items go to item() */
    VmafJsonItemFn item;
    void *arg;
    int item_err;           /* item()'s error, which stopped the parse */
} Parser;

static void fail(Parser *p, const char *reason)
{
    if (p->failed) return;
    p->failed = 1;
    unsigned line = 1, col = 1;
    for (const char *c = p->start; c < p->s && c < p->end; c++) {
        if (*c == '\n') {
            line++;
            col = 1;
        } else {
            col++;
        }
    }
    if (p->err && p->err_sz) snprintf(p->err, p->err_sz, "line %u, column %u: %s", line, col, reason);
}

static void skip_space(Parser *p)
{
    while (p->s < p->end && (*p->s == ' ' || *p->s == '\t' || *p->s == '\n' || *p->s == '\r'))
        p->s++;
}

static VmafJson *new_node(Parser *p, enum VmafJsonType type)
{
    VmafJson *j = calloc(1, sizeof(*j));
    if (!j) fail(p, "out of memory");
    else j->type = type;
    return j;
}

static int append_item(Parser *p, VmafJson *parent, char *key, VmafJson *item)
{
    if (!(parent->cnt & (parent->cnt - 1)) || !parent->cnt) {
        const unsigned cap = parent->cnt ? 2 * parent->cnt : 1;
        VmafJson **items = realloc(parent->items, cap * sizeof(*items));
        if (!items) goto oom;
        parent->items = items;
        if (parent->type == VMAF_JSON_OBJECT) {
            char **keys = realloc(parent->keys, cap * sizeof(*keys));
            if (!keys) goto oom;
            parent->keys = keys;
        }
    }
    parent->items[parent->cnt] = item;
    if (parent->type == VMAF_JSON_OBJECT) parent->keys[parent->cnt] = key;
    parent->cnt++;
    return 0;
oom:
    fail(p, "out of memory");
    free(key);
    vmaf_json_free(item);
    return -ENOMEM;
}

static int hex4(Parser *p, unsigned *out)
{
    if (p->end - p->s < 4) return -1;
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        const char c = *p->s++;
        v <<= 4;
        if (c >= '0' && c <= '9') v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f') v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') v |= (unsigned)(c - 'A' + 10);
        else return -1;
    }
    *out = v;
    return 0;
}

static size_t put_utf8(char *dst, unsigned cp)
{
    if (cp < 0x80) { dst[0] = (char)cp; return 1; }
    if (cp < 0x800) {
        dst[0] = (char)(0xc0 | (cp >> 6));
        dst[1] = (char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        dst[0] = (char)(0xe0 | (cp >> 12));
        dst[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        dst[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    dst[0] = (char)(0xf0 | (cp >> 18));
    dst[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
    dst[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
    dst[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

/* p->s at the opening quote. Escapes never lengthen the text, so the input size bounds it. */
static char *parse_string(Parser *p)
{
    const char *q = ++p->s;
    while (q < p->end && *q != '"') q += (*q == '\\') ? 2 : 1;
    if (q >= p->end) {
        fail(p, "unterminated string");
        return NULL;
    }
    char *out = malloc((size_t)(q - p->s) + 1);
    if (!out) {
        fail(p, "out of memory");
        return NULL;
    }
    size_t n = 0;
    while (*p->s != '"') {
        char c = *p->s++;
        if ((unsigned char)c < 0x20) {
            fail(p, "control character in string");
            goto error;
        }
        if (c != '\\') {
            out[n++] = c;
            continue;
        }
        c = *p->s++;
        switch (c) {
        case '"': case '\\': case '/': out[n++] = c; break;
        case 'b': out[n++] = '\b'; break;
        case 'f': out[n++] = '\f'; break;
        case 'n': out[n++] = '\n'; break;
        case 'r': out[n++] = '\r'; break;
        case 't': out[n++] = '\t'; break;
        case 'u': {
            unsigned cp;
            if (hex4(p, &cp)) {
                fail(p, "bad \\u escape");
                goto error;
            }
            if (cp >= 0xd800 && cp < 0xdc00 && p->end - p->s >= 6 && p->s[0] == '\\' &&
                p->s[1] == 'u') {
                unsigned lo;
                p->s += 2;
                if (hex4(p, &lo) || lo < 0xdc00 || lo > 0xdfff) {
                    fail(p, "bad surrogate pair");
                    goto error;
                }
                cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
            }
            n += put_utf8(out + n, cp);
            break;
        }
        default:
            fail(p, "bad escape in string");
            goto error;
        }
    }
    p->s++;
    out[n] = '\0';
    return out;
error:
    free(out);
    return NULL;
}

static VmafJson *parse_value(Parser *p, int depth);

/* The streamed array at p->s ('['): each item to p->item(), then freed; an empty array. */
static VmafJson *parse_streamed(Parser *p, int depth)
{
    VmafJson *j = new_node(p, VMAF_JSON_ARRAY);
    if (!j) return NULL;
    p->s++;
    skip_space(p);
    if (p->s < p->end && *p->s == ']') {
        p->s++;
        return j;
    }
    for (unsigned i = 0;; i++) {
        VmafJson *item = parse_value(p, depth + 1);
        if (!item) break;
        const int e = p->item(p->arg, i, item);
        vmaf_json_free(item);
        if (e) {
            p->item_err = e;
            p->failed = 1;
            break;
        }
        skip_space(p);
        if (p->s < p->end && *p->s == ',') {
            p->s++;
            continue;
        }
        if (p->s < p->end && *p->s == ']') {
            p->s++;
            return j;
        }
        fail(p, "expected ',' or ']'");
        break;
    }
    vmaf_json_free(j);
    return NULL;
}

static VmafJson *parse_container(Parser *p, int depth, enum VmafJsonType type)
{
    const char close = type == VMAF_JSON_OBJECT ? '}' : ']';
    VmafJson *j = new_node(p, type);
    if (!j) return NULL;
    p->s++;
    skip_space(p);
    if (p->s < p->end && *p->s == close) {
        p->s++;
        return j;
    }
    for (;;) {
        char *key = NULL;
        skip_space(p);
        if (type == VMAF_JSON_OBJECT) {
            if (p->s >= p->end || *p->s != '"') {
                fail(p, "expected a string key");
                goto error;
            }
            key = parse_string(p);
            if (!key) goto error;
            skip_space(p);
            if (p->s >= p->end || *p->s != ':') {
                free(key);
                fail(p, "expected ':' after key");
                goto error;
            }
            p->s++;
            skip_space(p);
        }
        const bool streamed = !depth && key && p->stream_key && !strcmp(key, p->stream_key) &&
                              p->s < p->end && *p->s == '[';
        VmafJson *item = streamed ? parse_streamed(p, depth + 1) : parse_value(p, depth + 1);
        if (!item) {
            free(key);
            goto error;
        }
        if (append_item(p, j, key, item)) goto error;
        skip_space(p);
        if (p->s < p->end && *p->s == ',') {
            p->s++;
            continue;
        }
        if (p->s < p->end && *p->s == close) {
            p->s++;
            return j;
        }
        fail(p, type == VMAF_JSON_OBJECT ? "expected ',' or '}'" : "expected ',' or ']'");
        goto error;
    }
error:
    vmaf_json_free(j);
    return NULL;
}

static int match_word(Parser *p, const char *word)
{
    const size_t n = strlen(word);
    if ((size_t)(p->end - p->s) < n || memcmp(p->s, word, n)) return 0;
    p->s += n;
    return 1;
}

static VmafJson *parse_number(Parser *p)
{
    const char *q = p->s;
    if (q < p->end && *q == '-') q++;
    if (q >= p->end || *q < '0' || *q > '9') {
        fail(p, "unexpected character");
        return NULL;
    }
    while (q < p->end && ((*q >= '0' && *q <= '9') || *q == '.' || *q == 'e' || *q == 'E' ||
                          *q == '+' || *q == '-'))
        q++;
    char buf[128];
    const size_t n = (size_t)(q - p->s);
    if (n >= sizeof(buf)) {
        fail(p, "number too long");
        return NULL;
    }
    memcpy(buf, p->s, n);
    buf[n] = '\0';
    char *end;
    const double v = strtod(buf, &end);
    if (*end) {
        fail(p, "malformed number");
        return NULL;
    }
    VmafJson *j = new_node(p, VMAF_JSON_NUMBER);
    if (!j) return NULL;
    j->number = v;
    j->string = strdup(buf);
    if (!j->string) {
        fail(p, "out of memory");
        vmaf_json_free(j);
        return NULL;
    }
    p->s = q;
    return j;
}

static VmafJson *parse_value(Parser *p, int depth)
{
    if (depth > JSON_MAX_DEPTH) {
        fail(p, "nesting too deep");
        return NULL;
    }
    skip_space(p);
    if (p->s >= p->end) {
        fail(p, "unexpected end of input");
        return NULL;
    }
    switch (*p->s) {
    case '{': return parse_container(p, depth, VMAF_JSON_OBJECT);
    case '[': return parse_container(p, depth, VMAF_JSON_ARRAY);
    case '"': {
        char *s = parse_string(p);
        if (!s) return NULL;
        VmafJson *j = new_node(p, VMAF_JSON_STRING);
        if (!j) free(s);
        else j->string = s;
        return j;
    }
    case 't':
    case 'f': {
        const int is_true = *p->s == 't';
        if (!match_word(p, is_true ? "true" : "false")) break;
        VmafJson *j = new_node(p, VMAF_JSON_BOOL);
        if (j) j->boolean = is_true;
        return j;
    }
    case 'n':
        if (!match_word(p, "null")) break;
        return new_node(p, VMAF_JSON_NULL);
    default:
        return parse_number(p);
    }
    fail(p, "unexpected word");
    return NULL;
}

static int parse_text(VmafJson **root, Parser *p)
{
    VmafJson *j = parse_value(p, 0);
    if (j) {
        skip_space(p);
        if (p->s != p->end) {
            fail(p, "trailing characters after the document");
            vmaf_json_free(j);
            j = NULL;
        }
    }
    if (!j) return p->item_err ? p->item_err : -EINVAL;
    *root = j;
    return 0;
}

int vmaf_json_parse(VmafJson **root, const char *text, size_t len, char *err, size_t err_sz)
{
    if (!root || !text) return -EINVAL;
    Parser p = { .s = text, .end = text + len, .start = text, .err = err, .err_sz = err_sz };
    return parse_text(root, &p);
}

/* The whole file into *buf_out (free()d by the caller). 0 or a negative errno, err written. */
static int read_file(const char *path, char **buf_out, size_t *len_out, char *err, size_t err_sz)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        const int e = errno;
        snprintf(err, err_sz, "%s: %s", path, strerror(e));
        return -e;
    }
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    while (buf) {
        len += fread(buf + len, 1, cap - len, f);
        if (len < cap) break;
        if (cap >= (size_t)1 << 30) {
            free(buf);
            buf = NULL;
            break;
        }
        char *bigger = realloc(buf, 2 * cap);
        if (!bigger) {
            free(buf);
            buf = NULL;
        }
        buf = bigger;
        cap *= 2;
    }
    const int read_failed = ferror(f);
    fclose(f);
    if (!buf || read_failed) {
        const int ret = buf ? -EIO : -ENOMEM;
        free(buf);
        snprintf(err, err_sz, "%s: %s", path,
                 ret == -EIO ? "read error" : "file too large or out of memory");
        return ret;
    }
    *buf_out = buf;
    *len_out = len;
    return 0;
}

static int parse_file(VmafJson **root, const char *path, Parser *p, char *err, size_t err_sz)
{
    char *buf = NULL;
    size_t len = 0;
    int ret = read_file(path, &buf, &len, err, err_sz);
    if (ret) return ret;
    char msg[256] = "";
    p->s = p->start = buf;
    p->end = buf + len;
    p->err = msg;
    p->err_sz = sizeof(msg);
    ret = parse_text(root, p);
    if (ret && !p->item_err) snprintf(err, err_sz, "%s: %s", path, msg);
    free(buf);
    return ret;
}

int vmaf_json_parse_file(VmafJson **root, const char *path, char *err, size_t err_sz)
{
    if (!root || !path) return -EINVAL;
    Parser p = { .s = NULL };
    return parse_file(root, path, &p, err, err_sz);
}

int vmaf_json_parse_file_streaming(VmafJson **root, const char *path, const char *key,
                                   VmafJsonItemFn item, void *arg, char *err, size_t err_sz)
{
    if (!root || !path || !key || !item) return -EINVAL;
    Parser p = { .stream_key = key, .item = item, .arg = arg };
    if (err && err_sz) err[0] = '\0';
    return parse_file(root, path, &p, err, err_sz);
}

void vmaf_json_free(VmafJson *j)
{
    if (!j) return;
    for (unsigned i = 0; i < j->cnt; i++) {
        vmaf_json_free(j->items[i]);
        if (j->keys) free(j->keys[i]);
    }
    free(j->items);
    free(j->keys);
    free(j->string);
    free(j);
}

const VmafJson *vmaf_json_get(const VmafJson *object, const char *key)
{
    if (!object || object->type != VMAF_JSON_OBJECT) return NULL;
    for (unsigned i = 0; i < object->cnt; i++)
        if (!strcmp(object->keys[i], key)) return object->items[i];
    return NULL;
}
