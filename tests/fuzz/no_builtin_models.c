/* The fuzz build embeds no model files: the model target feeds its own. */
#include <stddef.h>

#include "model.h"

const VmafBuiltinModel vmaf_builtin_models[] = { { NULL, NULL, 0 } };
const char *const vmaf_builtin_model_versions[] = { NULL };
