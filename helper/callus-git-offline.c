/*
 * callus-git-offline.c - the helper never reaches the network, and does not
 * pay for being able to.
 *
 * libgit2 starts its TLS and SSH support at git_libgit2_init(): with
 * Debian's build, mbedTLS seeds a random generator and parses the system's
 * certificate bundle (/etc/ssl/certs/ca-certificates.crt, some 140
 * certificates decoded from base64), and libssh2 starts OpenSSL's libcrypto.
 * That was three quarters of the helper's start (`callus-git batch WS head`:
 * 5.3 -> 1.5 ms of CPU, docs/scale.md, the nineteenth pass), and a failure's
 * snapshot is one start of the helper.  Every request of callus-git reads
 * and writes a local repository only, so in the static link (Makefile,
 * GIT2_STATIC) libgit2's calls to those two starts are bound here instead
 * (ld's --wrap: the references from libgit2.c's table of starts go to the
 * __wrap_ name; their own definitions stay, unused).  A shared libgit2 keeps
 * its own calls; these are then unused.
 *
 * TLS is also refused outright (callus_git_offline, for every link): should
 * a request ever reach an https remote, libgit2 asks this file for the
 * stream and gets an error, never mbedTLS's configuration that was not made.
 * libssh2 starts itself when a session is made, so SSH needs nothing.
 */
#include "callus-git.h"

#include <git2/sys/stream.h>

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

	return git_stream_register(GIT_STREAM_TLS, &reg);
}
