#include "deja/common.h"
#include "deja/buf.h"

#include <stdarg.h>
#include <stdlib.h>

int deja_error_set(deja_error *err, int code, const char *fmt, ...)
{
	deja_buf b = DEJA_BUF_INIT;
	va_list ap;

	if (!err || err->msg)
		return code;
	va_start(ap, fmt);
	deja_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	err->code = code;
	err->msg = deja_buf_status(&b) ? NULL : deja_buf_detach(&b);
	deja_buf_release(&b);
	return code;
}

const char *deja_error_message(const deja_error *err)
{
	if (err && err->msg)
		return err->msg;
	switch (err ? err->code : 0) {
	case DEJA_ENOMEM: return "out of memory";
	case DEJA_EINVAL: return "invalid input";
	case DEJA_EIO: return "input/output error";
	case DEJA_EBUSY: return "the store is locked";
	case DEJA_ENOTFOUND: return "not found";
	case DEJA_ETOOBIG: return "too large";
	default: return "unknown error";
	}
}

void deja_error_release(deja_error *err)
{
	if (!err)
		return;
	free(err->msg);
	err->msg = NULL;
	err->code = 0;
}
