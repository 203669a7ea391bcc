#pragma once
// Whether an NBD endpoint can be listened on, found without listening:
// what NbdServer::Listen would refuse, checked early (before a volume's
// recovery, which can take a while) so that a typo, a missing directory or
// an address in use fails at once. The real bind stays Listen's.
//
// Threading: any thread; blocking (a name lookup, a connect to a unix
// socket that exists).

#include "tiering/core/Expected.h"
#include "tiering/nbd/NbdServer.h"

namespace tierlab {

// unix: the socket's directory exists and is writable, and no server
// listens on an existing socket there (a file that is not a socket is
// refused; a stale socket is fine, Listen replaces it). tcp: the host
// resolves and one of its addresses binds. Errors name the path or
// host:port: kInput for what the user named wrongly (no directory, no
// permission, a host that does not resolve), kIo for what is in the way.
Expected<void> CheckNbdEndpointFree(const NbdEndpoint& ep);

}  // namespace tierlab
