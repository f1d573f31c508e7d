// Every test process holds a key pair for each service identity, so the servers and clients a test starts in this
// process authenticate each other as they do in production (docs/security.md); e2e tests' supervisors make
// their own in their work dirs.
import { generateKeyring, installKeyring } from '@cairn/rpc';

installKeyring(generateKeyring());
