#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "title_fingerprint.h"

/* CRC-32 as zlib computes it (reflected, polynomial 0xedb88320), bit by bit: 384 KiB per
 * input once per segment process, so a table buys nothing worth its lines. */
static uint32_t crc32_update(uint32_t crc, const unsigned char *p, size_t n)
{
    crc = ~crc;
    for (size_t i = 0; i < n; i++) {
        crc ^= p[i];
        for (int k = 0; k < 8; k++) crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}

/* 0 with *size and *crc, 1 when path is not a regular file, or a negative errno. */
static int sample_file(const char *path, uint64_t *size, uint32_t *crc, char *why,
                       size_t why_size)
{
    const int fd = open(path, O_RDONLY);
    struct stat st;
    int err = 0;
    if (fd < 0 || fstat(fd, &st)) {
        err = -errno;
        snprintf(why, why_size, "cannot read %s for the title fingerprint: %s", path,
                 strerror(errno));
        if (fd >= 0) close(fd);
        return err;
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return 1;
    }
    unsigned char *buf = malloc(TITLE_FINGERPRINT_WINDOW);
    if (!buf) {
        close(fd);
        snprintf(why, why_size, "out of memory for the title fingerprint");
        return -ENOMEM;
    }
    const uint64_t total = (uint64_t)st.st_size;
    const size_t n = total < TITLE_FINGERPRINT_WINDOW ? (size_t)total : TITLE_FINGERPRINT_WINDOW;
    const uint64_t offset[3] = { 0, (total - n) / 2, total - n };
    uint32_t c = 0;
    for (unsigned w = 0; w < 3 && !err; w++) {
        size_t got = 0;
        while (got < n) {
            const ssize_t r = pread(fd, buf + got, n - got, (off_t)(offset[w] + got));
            if (r < 0 && errno == EINTR) continue;
            if (r <= 0) {
                err = r < 0 ? -errno : -EIO;
                snprintf(why, why_size, "cannot read %s for the title fingerprint: %s", path,
                         r < 0 ? strerror(errno) : "it became shorter");
                break;
            }
            got += (size_t)r;
        }
        if (!err) c = crc32_update(c, buf, n);
    }
    free(buf);
    close(fd);
    *size = total;
    *crc = c;
    return err;
}

int title_fingerprint(const char *reference, const char *distorted, unsigned skip_ref,
                      unsigned skip_dist, char *out, size_t size, char *why, size_t why_size)
{
    uint64_t bytes[2];
    uint32_t crc[2];
    const char *const path[2] = { reference, distorted };
    for (unsigned i = 0; i < 2; i++) {
        const int r = sample_file(path[i], &bytes[i], &crc[i], why, why_size);
        if (r) return r;
    }
    snprintf(out, size, "ref=%" PRIu64 ":%08" PRIx32 ",dist=%" PRIu64 ":%08" PRIx32 ",skip=%u:%u",
             bytes[0], crc[0], bytes[1], crc[1], skip_ref, skip_dist);
    return 0;
}
