/* The C compilation of device_lang.inc (see there). */
#include "device_lang.inc"
