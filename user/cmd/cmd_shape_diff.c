// SPDX-License-Identifier: GPL-2.0
#include "cli.h"
#include "shape_cmd.h"

int cmd_shape_diff(int argc, char **argv)
{
	return FP_EXIT_USAGE;
}
