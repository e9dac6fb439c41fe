/*
 * libsvm support vector regression: the text format of a model's "model" key, and the
 * prediction VMAF models use (nu-SVR or epsilon-SVR with an RBF kernel).
 */
#ifndef VMAF_SRC_SVM_H
#define VMAF_SRC_SVM_H

#include <stddef.h>

/** One sparse vector component; vectors are arrays of nodes. */
typedef struct VmafSvmNode {
    int index;
    double value;
} VmafSvmNode;

typedef struct VmafSvm {
    double gamma, rho;
    unsigned sv_cnt;
    double *coef;           /* sv_cnt coefficients */
    size_t *sv_start;       /* sv_cnt + 1 offsets into node: SV j is node[sv_start[j]..sv_start[j+1]) */
    VmafSvmNode *node;
} VmafSvm;

/**
 * Parse libsvm model text (header keywords, "SV", then total_sv lines "coef i:v ...").
 * Only svm_type nu_svr / epsilon_svr with kernel_type rbf and nr_class 2 are accepted.
 * On failure returns -EINVAL (or -ENOMEM) and writes the reason, with its line, into err.
 */
int vmaf_svm_parse(VmafSvm **svm, const char *text, size_t len, char *err, size_t err_sz);

void vmaf_svm_free(VmafSvm *svm);

/**
 * sum_j coef_j * exp(-gamma * |x - sv_j|^2) - rho, summed over the support vectors in
 * file order; the squared distance is accumulated over the union of both vectors' indices
 * in ascending order, as libsvm does. x holds n nodes with ascending indices.
 */
double vmaf_svm_predict(const VmafSvm *svm, const VmafSvmNode *x, unsigned n);

#endif /* VMAF_SRC_SVM_H */
