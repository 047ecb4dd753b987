// SPDX-License-Identifier: GPL-2.0-only
/* Sockets: the object the tests leave unrecorded (RECORD_SKIP=sock.o). */
#include "example.h"

static int next_fd = 3;

static noinline int sock_alloc(int family)
{
	return next_fd++ * 16 + family;
}

int sock_create(int family)
{
	return sock_alloc(family) + proto_register(family);
}

int sock_sendmsg(int fd, int len)
{
	return fd + len + (int)str_hash("payload");
}
