#include "callus/common.h"
#include "callus/buf.h"

#include <stdarg.h>
#include <stdlib.h>

int callus_error_set(callus_error *err, int code, const char *fmt, ...)
{
	callus_buf b = CALLUS_BUF_INIT;
	va_list ap;

	if (!err || err->msg)
		return code;
	va_start(ap, fmt);
	callus_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	err->code = code;
	err->msg = callus_buf_status(&b) ? NULL : callus_buf_detach(&b);
	callus_buf_release(&b);
	return code;
}

const char *callus_error_message(const callus_error *err)
{
	if (err && err->msg)
		return err->msg;
	switch (err ? err->code : 0) {
	case CALLUS_ENOMEM: return "out of memory";
	case CALLUS_EINVAL: return "invalid input";
	case CALLUS_EIO: return "input/output error";
	case CALLUS_EBUSY: return "the store is locked";
	case CALLUS_ENOTFOUND: return "not found";
	case CALLUS_ETOOBIG: return "too large";
	case CALLUS_EUNSAFE: return "refused: outside the workspace";
	case CALLUS_EEXIST: return "already recorded";
	case CALLUS_ECHANGED: return "changed since it was read";
	default: return "unknown error";
	}
}

void callus_error_release(callus_error *err)
{
	if (!err)
		return;
	free(err->msg);
	err->msg = NULL;
	err->code = 0;
}
