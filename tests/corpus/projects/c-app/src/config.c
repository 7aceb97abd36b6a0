#include <stdio.h>

#include "config.h"

int config_size(const struct config *cfg)
{
	return cfg->size;
}

int load(struct config *cfg)
{
	return open_config(cfg, "shop.conf");
}
