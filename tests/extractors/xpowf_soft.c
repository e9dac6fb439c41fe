/* feature/xpowf.h built with the software binary64 on the host (VMAF_F64_SOFT_ON_HOST: the
 * doubles an OpenCL program without fp64 computes), for test_xpowf_f64. */
#include "feature/xpowf.h"

#if !VMAF_DOUBLE_SOFT
#error "xpowf_soft.c must be built with VMAF_F64_SOFT_ON_HOST=1"
#endif

/* vmaf_xpowf_with on the software double: fixed = 1 tries the fixed-point path first (what
 * such a program runs), 0 runs the double steps only */
float test_xpowf_soft(float x, float y, int fixed);

float test_xpowf_soft(float x, float y, int fixed)
{
    return vmaf_xpowf_with(x, y, fixed);
}
