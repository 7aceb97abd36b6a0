/*
 * callus-git-offline.c - the helper never reaches the network, and does not
 * pay for being able to.
 *
 * Every request of callus-git reads and writes a local repository.  But
 * Debian's libgit2 carries a network stack: at git_libgit2_init() mbedTLS
 * seeds a random generator and parses the system's certificate bundle (some
 * 140 certificates decoded from base64) and libssh2 starts OpenSSL's
 * libcrypto, which was three quarters of the helper's start; and HTTP's
 * Negotiate authentication made the helper load GSSAPI and Kerberos, seven
 * shared libraries mapped and relocated at every start.  A failure's
 * snapshot is one start of the helper (docs/scale-history.md, the nineteenth pass:
 * `callus-git batch WS head` 5.0 -> 1.2 ms of CPU in bench/snapshot.sh).
 *
 * So, in the static link (Makefile, GIT2_STATIC and GIT2_OFFLINE), ld's
 * --wrap binds libgit2's references to those starts and to the GSSAPI
 * functions to the __wrap_ definitions below instead: the starts do
 * nothing, GSSAPI refuses (GSS_S_FAILURE), and GSSAPI is not linked at all
 * (its one variable is defined here).
 * The definitions of the two starts stay in libgit2, unused.  With a shared
 * libgit2 (the sanitizer build, another distribution) nothing is bound and
 * these are unused.
 *
 * What makes that safe is callus_git_offline(), for every link: libgit2 is
 * given streams that refuse, for plain sockets and TLS alike, so that no
 * request can open a connection, reach mbedTLS's configuration that was
 * never made, or be asked by a server for Negotiate.  (libssh2 starts
 * itself when a session is made, and no session can be without a socket.)
 */
#include "callus-git.h"

#include <git2/sys/stream.h>
#include <git2/sys/transport.h>
#include <stddef.h>
#include <stdint.h>

static int refuse(git_stream **out, const char *host, const char *port)
{
	(void)host;
	(void)port;
	*out = NULL;
	git_error_set_str(GIT_ERROR_NET, "callus-git does not reach the network");
	return -1;
}

static int refuse_wrap(git_stream **out, git_stream *in, const char *host)
{
	(void)in;
	return refuse(out, host, NULL);
}

int callus_git_offline(void)
{
	/* copied by libgit2 */
	git_stream_registration reg = { GIT_STREAM_VERSION, refuse, refuse_wrap };

	return git_stream_register(GIT_STREAM_STANDARD | GIT_STREAM_TLS, &reg);
}

#ifdef CALLUS_GIT_OFFLINE
/* ---- libgit2's SSH transport and TLS stream, never linked -------------
 *
 * Linked, libgit2's SSH transport brings libssh2 and, under it, OpenSSL's
 * libcrypto (some 740 archive members), and its TLS stream the TLS half
 * of mbedTLS: 18,000 relative relocations of their tables in the helper
 * (a PIE), each page of them faulted in and copied at every start, a
 * sixth of a snapshot (docs/scale-history.md, the thirty-sixth pass).  Defined
 * here, weak, the references libgit2 makes to them are met before its
 * archive is searched, so those members are never linked.  A libgit2
 * that links them anyway, for a symbol not met here, keeps its own
 * (a strong definition wins over a weak one: no clash, only the gain
 * lost).  The TLS ones are never called, the streams callus_git_offline()
 * registers come first; an ssh:// remote reaches the SSH one, which
 * refuses as those streams do (test_git_offline).
 */
int git_mbedtls_stream_new(git_stream **out, const char *host, const char *port);
int git_mbedtls_stream_wrap(git_stream **out, git_stream *in, const char *host);
int git_mbedtls__set_cert_location(const char *file, const char *path);

__attribute__((weak)) int git_smart_subtransport_ssh(git_smart_subtransport **out,
						     git_transport *owner, void *param)
{
	(void)owner;
	(void)param;
	*out = NULL;
	git_error_set_str(GIT_ERROR_NET, "callus-git does not reach the network");
	return -1;
}

__attribute__((weak)) int git_mbedtls_stream_new(git_stream **out, const char *host,
						 const char *port)
{
	return refuse(out, host, port);
}

__attribute__((weak)) int git_mbedtls_stream_wrap(git_stream **out, git_stream *in,
						  const char *host)
{
	return refuse_wrap(out, in, host);
}

/* git_libgit2_opts(GIT_OPT_SET_SSL_CERT_LOCATIONS): no TLS to give them */
__attribute__((weak)) int git_mbedtls__set_cert_location(const char *file, const char *path)
{
	(void)file;
	(void)path;
	git_error_set_str(GIT_ERROR_NET, "callus-git does not reach the network");
	return -1;
}
#endif

/* ---- libgit2's starts of TLS and SSH --------------------------------- */

int __wrap_git_mbedtls_stream_global_init(void);
int __wrap_git_transport_ssh_global_init(void);

int __wrap_git_mbedtls_stream_global_init(void)
{
	return 0;
}

int __wrap_git_transport_ssh_global_init(void)
{
	return 0;
}

/* ---- GSSAPI (RFC 2744's C binding), refused --------------------------- */

/* Its types as the ABI has them (OM_uint32, opaque handles as pointers,
 * gss_buffer_desc), so that no GSSAPI header is needed. */
typedef uint32_t gss_u32;
typedef struct gss_buffer {
	size_t length;
	void *value;
} gss_buffer;

#define GSS_COMPLETE 0u
#define GSS_FAILURE (13u << 16)

#ifdef CALLUS_GIT_OFFLINE
/* The one variable of GSSAPI libgit2 names, an OID it hands back to
 * gss_import_name: defined, not bound (ld's --wrap of a variable crashed
 * binutils 2.40), and only where GSSAPI is not linked (the Makefile
 * defines CALLUS_GIT_OFFLINE there), so that a shared libgit2 keeps its
 * own. */
void *const GSS_C_NT_HOSTBASED_SERVICE = NULL;
#endif

static gss_u32 done(gss_u32 *minor, gss_u32 major)
{
	if (minor)
		*minor = 0;
	return major;
}

static void empty(gss_buffer *b)
{
	if (b) {
		b->length = 0;
		b->value = NULL;
	}
}

gss_u32 __wrap_gss_indicate_mechs(gss_u32 *minor, void **mechs);
gss_u32 __wrap_gss_import_name(gss_u32 *minor, gss_buffer *name, void *type, void **out);
gss_u32 __wrap_gss_init_sec_context(gss_u32 *minor, void *cred, void **ctx, void *target,
				    void *mech, gss_u32 flags, gss_u32 time, void *bindings,
				    gss_buffer *in, void **actual_mech, gss_buffer *out,
				    gss_u32 *ret_flags, gss_u32 *time_rec);
gss_u32 __wrap_gss_delete_sec_context(gss_u32 *minor, void **ctx, gss_buffer *out);
gss_u32 __wrap_gss_display_status(gss_u32 *minor, gss_u32 status, int type, void *mech,
				  gss_u32 *more, gss_buffer *text);
gss_u32 __wrap_gss_release_buffer(gss_u32 *minor, gss_buffer *b);
gss_u32 __wrap_gss_release_name(gss_u32 *minor, void **name);
gss_u32 __wrap_gss_release_oid_set(gss_u32 *minor, void **set);

gss_u32 __wrap_gss_indicate_mechs(gss_u32 *minor, void **mechs)
{
	if (mechs)
		*mechs = NULL;
	return done(minor, GSS_FAILURE);
}

gss_u32 __wrap_gss_import_name(gss_u32 *minor, gss_buffer *name, void *type, void **out)
{
	(void)name;
	(void)type;
	if (out)
		*out = NULL;
	return done(minor, GSS_FAILURE);
}

gss_u32 __wrap_gss_init_sec_context(gss_u32 *minor, void *cred, void **ctx, void *target,
				    void *mech, gss_u32 flags, gss_u32 time, void *bindings,
				    gss_buffer *in, void **actual_mech, gss_buffer *out,
				    gss_u32 *ret_flags, gss_u32 *time_rec)
{
	(void)cred;
	(void)ctx;
	(void)target;
	(void)mech;
	(void)flags;
	(void)time;
	(void)bindings;
	(void)in;
	if (actual_mech)
		*actual_mech = NULL;
	empty(out);
	if (ret_flags)
		*ret_flags = 0;
	if (time_rec)
		*time_rec = 0;
	return done(minor, GSS_FAILURE);
}

gss_u32 __wrap_gss_delete_sec_context(gss_u32 *minor, void **ctx, gss_buffer *out)
{
	if (ctx)
		*ctx = NULL;
	empty(out);
	return done(minor, GSS_COMPLETE);
}

/* No text: a caller that loops while *more is set stops at once. */
gss_u32 __wrap_gss_display_status(gss_u32 *minor, gss_u32 status, int type, void *mech,
				  gss_u32 *more, gss_buffer *text)
{
	(void)status;
	(void)type;
	(void)mech;
	if (more)
		*more = 0;
	empty(text);
	return done(minor, GSS_FAILURE);
}

gss_u32 __wrap_gss_release_buffer(gss_u32 *minor, gss_buffer *b)
{
	empty(b);
	return done(minor, GSS_COMPLETE);
}

gss_u32 __wrap_gss_release_name(gss_u32 *minor, void **name)
{
	if (name)
		*name = NULL;
	return done(minor, GSS_COMPLETE);
}

gss_u32 __wrap_gss_release_oid_set(gss_u32 *minor, void **set)
{
	if (set)
		*set = NULL;
	return done(minor, GSS_COMPLETE);
}
