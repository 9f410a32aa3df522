/* calibration.c - freeing calibration runs (calibration.h). */
#include "calibration.h"

#include <stdlib.h>

void sb_calibrations_free(sb_calibration *v, size_t n)
{
    for (size_t i = 0; v && i < n; i++)
        free(v[i].ceilings);
    free(v);
}
