#ifndef CONFIG_H
#define CONFIG_H

struct config {
	const char *path;
	int verbose;
};

int open_config(struct config *cfg, const char *path, int flags);

#endif
