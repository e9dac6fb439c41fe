#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "svm.h"

#define NUMBER_MAX_LEN 63

typedef struct Reader {
    const char *s, *end;
    unsigned line;
    char *err;
    size_t err_sz;
} Reader;

typedef struct Token {
    const char *s;
    size_t len;
} Token;

static int fail(Reader *r, const char *fmt, ...)
{
    if (r->err && r->err_sz) {
        int n = snprintf(r->err, r->err_sz, "libsvm text, line %u: ", r->line);
        if (n < 0 || (size_t)n >= r->err_sz) n = 0;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(r->err + n, r->err_sz - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return -EINVAL;
}

static bool is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

/* Next whitespace-separated token of the header, counting lines. */
static bool next_token(Reader *r, Token *t)
{
    while (r->s < r->end && (is_blank(*r->s) || *r->s == '\n')) {
        if (*r->s == '\n') r->line++;
        r->s++;
    }
    if (r->s >= r->end) return false;
    t->s = r->s;
    while (r->s < r->end && !is_blank(*r->s) && *r->s != '\n') r->s++;
    t->len = (size_t)(r->s - t->s);
    return true;
}

static bool token_is(const Token *t, const char *word)
{
    return strlen(word) == t->len && !memcmp(t->s, word, t->len);
}

/* Decimal grammar only ([+-]digits[.digits][e[+-]digits]): libsvm's stream reads never
 * accept inf, nan or hex floats either. */
static bool is_decimal(const char *s, size_t len, bool integer)
{
    size_t i = 0, digits = 0;
    if (i < len && (s[i] == '+' || s[i] == '-')) i++;
    while (i < len && s[i] >= '0' && s[i] <= '9') i++, digits++;
    if (integer) return digits && i == len;
    if (i < len && s[i] == '.') {
        i++;
        while (i < len && s[i] >= '0' && s[i] <= '9') i++, digits++;
    }
    if (!digits) return false;
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < len && (s[i] == '+' || s[i] == '-')) i++;
        size_t exp_digits = 0;
        while (i < len && s[i] >= '0' && s[i] <= '9') i++, exp_digits++;
        if (!exp_digits) return false;
    }
    return i == len;
}

static int to_double(Reader *r, const char *s, size_t len, const char *what, double *out)
{
    char buf[NUMBER_MAX_LEN + 1];
    if (len > NUMBER_MAX_LEN || !is_decimal(s, len, false))
        return fail(r, "%s: \"%.*s\" is not a number", what, (int)(len > 40 ? 40 : len), s);
    memcpy(buf, s, len);
    buf[len] = '\0';
    const double v = strtod(buf, NULL);
    if (!isfinite(v)) return fail(r, "%s: %s is out of range", what, buf);
    *out = v;
    return 0;
}

static int to_int(Reader *r, const char *s, size_t len, const char *what, int *out)
{
    char buf[NUMBER_MAX_LEN + 1];
    if (len > NUMBER_MAX_LEN || !is_decimal(s, len, true))
        return fail(r, "%s: \"%.*s\" is not an integer", what, (int)(len > 40 ? 40 : len), s);
    memcpy(buf, s, len);
    buf[len] = '\0';
    errno = 0;
    const long v = strtol(buf, NULL, 10);
    if (errno || v < INT_MIN || v > INT_MAX) return fail(r, "%s: %s is out of range", what, buf);
    *out = (int)v;
    return 0;
}

static int read_double(Reader *r, const char *what, double *out)
{
    Token t;
    if (!next_token(r, &t)) return fail(r, "%s: value missing", what);
    return to_double(r, t.s, t.len, what, out);
}

static int read_int(Reader *r, const char *what, int *out)
{
    Token t;
    if (!next_token(r, &t)) return fail(r, "%s: value missing", what);
    return to_int(r, t.s, t.len, what, out);
}

/* Keywords whose values prediction does not need: checked, then dropped. */
static int skip_values(Reader *r, const char *what, int cnt, bool integer)
{
    for (int i = 0; i < cnt; i++) {
        int iv;
        double dv;
        int err = integer ? read_int(r, what, &iv) : read_double(r, what, &dv);
        if (err) return err;
    }
    return 0;
}

typedef struct Header {
    bool svm_type, kernel_type, gamma, nr_class, total_sv, rho;
    int classes, sv_cnt;
    double gamma_value, rho_value;
} Header;

static int parse_header(Reader *r, Header *h)
{
    static const char *const svm_types[] = { "c_svc", "nu_svc", "one_class", "epsilon_svr",
                                             "nu_svr", NULL };
    static const char *const kernels[] = { "linear", "polynomial", "rbf", "sigmoid",
                                           "precomputed", NULL };
    Token t;
    for (;;) {
        if (!next_token(r, &t)) return fail(r, "no \"SV\" line before the end of the text");
        if (token_is(&t, "SV")) break;
        if (token_is(&t, "svm_type") || token_is(&t, "kernel_type")) {
            const bool svm = token_is(&t, "svm_type");
            const char *const *names = svm ? svm_types : kernels;
            Token v;
            if (!next_token(r, &v)) return fail(r, "%s: value missing", svm ? "svm_type" : "kernel_type");
            int k = -1;
            for (int i = 0; names[i]; i++)
                if (token_is(&v, names[i])) k = i;
            if (k < 0)
                return fail(r, "unknown %s \"%.*s\"", svm ? "svm_type" : "kernel_type",
                            (int)(v.len > 40 ? 40 : v.len), v.s);
            if (svm && strcmp(names[k], "nu_svr") && strcmp(names[k], "epsilon_svr"))
                return fail(r, "svm_type %s is not supported (nu_svr or epsilon_svr)", names[k]);
            if (!svm && strcmp(names[k], "rbf"))
                return fail(r, "kernel_type %s is not supported (rbf)", names[k]);
            if (svm) h->svm_type = true;
            else h->kernel_type = true;
        } else if (token_is(&t, "gamma")) {
            int err = read_double(r, "gamma", &h->gamma_value);
            if (err) return err;
            h->gamma = true;
        } else if (token_is(&t, "nr_class")) {
            int err = read_int(r, "nr_class", &h->classes);
            if (err) return err;
            if (h->classes != 2)
                return fail(r, "nr_class is %d; a regression model has 2", h->classes);
            h->nr_class = true;
        } else if (token_is(&t, "total_sv")) {
            int err = read_int(r, "total_sv", &h->sv_cnt);
            if (err) return err;
            if (h->sv_cnt < 0) return fail(r, "total_sv is negative");
            h->total_sv = true;
        } else if (token_is(&t, "rho")) {
            if (!h->nr_class) return fail(r, "rho before nr_class");
            int err = read_double(r, "rho", &h->rho_value);
            if (err) return err;
            h->rho = true;
        } else if (token_is(&t, "degree") || token_is(&t, "coef0")) {
            int err = skip_values(r, token_is(&t, "degree") ? "degree" : "coef0", 1,
                                  token_is(&t, "degree"));
            if (err) return err;
        } else if (token_is(&t, "label") || token_is(&t, "nr_sv")) {
            if (!h->nr_class) return fail(r, "%.*s before nr_class", (int)t.len, t.s);
            int err = skip_values(r, token_is(&t, "label") ? "label" : "nr_sv", h->classes, true);
            if (err) return err;
        } else if (token_is(&t, "probA") || token_is(&t, "probB")) {
            if (!h->nr_class) return fail(r, "%.*s before nr_class", (int)t.len, t.s);
            int err = skip_values(r, token_is(&t, "probA") ? "probA" : "probB", 1, false);
            if (err) return err;
        } else {
            return fail(r, "unknown keyword \"%.*s\"", (int)(t.len > 40 ? 40 : t.len), t.s);
        }
    }
    static const char *const required[] = { "svm_type", "kernel_type", "gamma", "nr_class",
                                             "total_sv", "rho" };
    const bool have[] = { h->svm_type, h->kernel_type, h->gamma, h->nr_class, h->total_sv, h->rho };
    for (unsigned i = 0; i < sizeof(have) / sizeof(have[0]); i++)
        if (!have[i]) return fail(r, "\"%s\" missing before \"SV\"", required[i]);
    /* the rest of the "SV" line must be empty */
    while (r->s < r->end && is_blank(*r->s)) r->s++;
    if (r->s < r->end && *r->s != '\n') return fail(r, "unexpected text after \"SV\"");
    return 0;
}

typedef struct NodeList {
    VmafSvmNode *node;
    size_t cnt, cap;
} NodeList;

static int push_node(NodeList *l, int index, double value)
{
    if (l->cnt == l->cap) {
        const size_t cap = l->cap ? 2 * l->cap : 256;
        VmafSvmNode *n = realloc(l->node, cap * sizeof(*n));
        if (!n) return -ENOMEM;
        l->node = n;
        l->cap = cap;
    }
    l->node[l->cnt++] = (VmafSvmNode){ .index = index, .value = value };
    return 0;
}

/* One "coef index:value ..." line in [s, e). */
static int parse_sv_line(Reader *r, const char *s, const char *e, VmafSvm *svm, unsigned j,
                         NodeList *nodes)
{
    while (s < e && is_blank(*s)) s++;
    const char *t = s;
    while (s < e && !is_blank(*s)) s++;
    if (t == s) return fail(r, "support vector %u: empty line", j + 1);
    int err = to_double(r, t, (size_t)(s - t), "support vector coefficient", &svm->coef[j]);
    if (err) return err;
    svm->sv_start[j] = nodes->cnt;
    for (;;) {
        while (s < e && is_blank(*s)) s++;
        if (s >= e) break;
        t = s;
        while (s < e && !is_blank(*s)) s++;
        const char *colon = memchr(t, ':', (size_t)(s - t));
        if (!colon) return fail(r, "support vector %u: \"index:value\" expected", j + 1);
        int index = 0;
        double value = 0.;
        err = to_int(r, t, (size_t)(colon - t), "support vector index", &index);
        if (!err) err = to_double(r, colon + 1, (size_t)(s - colon - 1), "support vector value", &value);
        if (err) return err;
        if (index < 0) return fail(r, "support vector %u: negative index %d", j + 1, index);
        err = push_node(nodes, index, value);
        if (err) return err;
    }
    return 0;
}

static int parse_support_vectors(Reader *r, VmafSvm *svm)
{
    NodeList nodes = { 0 };
    int err = 0;
    for (unsigned j = 0; j < svm->sv_cnt; j++) {
        /* r->s is at the '\n' ending the previous line */
        if (r->s >= r->end) {
            err = fail(r, "%u support vectors, total_sv says %u", j, svm->sv_cnt);
            goto fail;
        }
        r->s++;
        r->line++;
        const char *e = memchr(r->s, '\n', (size_t)(r->end - r->s));
        if (!e) e = r->end;
        err = parse_sv_line(r, r->s, e, svm, j, &nodes);
        if (err) goto fail;
        r->s = e;
    }
    svm->sv_start[svm->sv_cnt] = nodes.cnt;
    for (const char *s = r->s; s < r->end; s++) {
        if (*s == '\n') r->line++;
        if (!is_blank(*s) && *s != '\n') {
            err = fail(r, "more support vectors than total_sv (%u)", svm->sv_cnt);
            goto fail;
        }
    }
    svm->node = nodes.node;
    return 0;
fail:
    free(nodes.node);
    return err;
}

int vmaf_svm_parse(VmafSvm **svm_out, const char *text, size_t len, char *err, size_t err_sz)
{
    if (!svm_out || !text) return -EINVAL;
    Reader r = { .s = text, .end = text + len, .line = 1, .err = err, .err_sz = err_sz };
    Header h = { 0 };
    int ret = parse_header(&r, &h);
    if (ret) return ret;

    VmafSvm *svm = calloc(1, sizeof(*svm));
    if (!svm) return -ENOMEM;
    svm->gamma = h.gamma_value;
    svm->rho = h.rho_value;
    svm->sv_cnt = (unsigned)h.sv_cnt;
    svm->coef = malloc((svm->sv_cnt + 1) * sizeof(*svm->coef));
    svm->sv_start = malloc((svm->sv_cnt + 1) * sizeof(*svm->sv_start));
    if (!svm->coef || !svm->sv_start) {
        vmaf_svm_free(svm);
        return -ENOMEM;
    }
    ret = parse_support_vectors(&r, svm);
    if (ret) {
        if (ret == -ENOMEM && err && err_sz) snprintf(err, err_sz, "libsvm text: out of memory");
        vmaf_svm_free(svm);
        return ret;
    }
    *svm_out = svm;
    return 0;
}

void vmaf_svm_free(VmafSvm *svm)
{
    if (!svm) return;
    free(svm->coef);
    free(svm->sv_start);
    free(svm->node);
    free(svm);
}

/* The RBF kernel. The squared distance walks both sparse vectors in index order; a
 * component present in one vector only contributes its square. The summation order is
 * part of the result, so it follows libsvm's exactly. */
static double rbf(double gamma, const VmafSvmNode *x, size_t nx, const VmafSvmNode *y, size_t ny)
{
    double sum = 0.;
    size_t i = 0, j = 0;
    while (i < nx && j < ny) {
        if (x[i].index == y[j].index) {
            const double d = x[i].value - y[j].value;
            sum += d * d;
            i++;
            j++;
        } else if (x[i].index > y[j].index) {
            sum += y[j].value * y[j].value;
            j++;
        } else {
            sum += x[i].value * x[i].value;
            i++;
        }
    }
    for (; i < nx; i++) sum += x[i].value * x[i].value;
    for (; j < ny; j++) sum += y[j].value * y[j].value;
    return exp(-gamma * sum);
}

double vmaf_svm_predict(const VmafSvm *svm, const VmafSvmNode *x, unsigned n)
{
    double sum = 0.;
    for (unsigned j = 0; j < svm->sv_cnt; j++) {
        const VmafSvmNode *sv = &svm->node[svm->sv_start[j]];
        const size_t cnt = svm->sv_start[j + 1] - svm->sv_start[j];
        sum += svm->coef[j] * rbf(svm->gamma, x, n, sv, cnt);
    }
    sum -= svm->rho;
    return sum;
}
