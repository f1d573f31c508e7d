/**
 * The largest gRPC message a Cairn server or client sends or takes, in bytes. grpc-js refuses received messages
 * over 4 MiB by default, but some unary messages carry whole files: WriteFiles requests (the contents API takes
 * request bodies up to `[server] MAX_BODY_SIZE`, 10 MiB by default) and GetTreeEntry answers (file content up to
 * `[api] DEFAULT_MAX_BLOB_SIZE`, 10 MiB by default). 64 MiB leaves room for raising those settings while still
 * bounding what one message can make a process hold; anything bigger travels as a stream of chunks (GetBlob,
 * GetArchive, the smart HTTP streams).
 */
export const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

/**
 * A client's HTTP/2 receive window, in bytes. grpc-js's default (64 KiB) makes a streamed pack (a clone through
 * the gateway) wait for a window update every 64 KiB; 1 MiB took 85–135 ms off a 3 MB fetch in the git-clone
 * bench, at the cost of at most 1 MiB buffered per connection.
 */
export const FLOW_CONTROL_WINDOW_BYTES = 1024 * 1024;
