/* Twin VMAF — ciede.h's functions built with the host's libm (ciede_libm_ref.c). */
#ifndef VMAF_TESTS_CIEDE_LIBM_REF_H
#define VMAF_TESTS_CIEDE_LIBM_REF_H

#include "feature/ciede.h"

VmafCiedeLab ciede_ref_lab(double y, double u, double v, unsigned bpc);
float ciede_ref_t(float h);
float ciede_ref_theta(float h);
float ciede_ref_rotation(float c, float h);
float ciede_ref_hue(float b, float a);
float ciede_ref_2000(VmafCiedeLab p, VmafCiedeLab q);

#endif
