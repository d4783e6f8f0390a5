import AssetStorage

/// What became of one item of a prefetch list.
public struct PrefetchResult: Sendable, Equatable {
    /// Why an item failed: a short stable code and a message.
    public struct Failure: Sendable, Equatable {
        /// `malformed`, `http`, `timeout`, `connection`, `tooLarge`, `truncated`, `invalid`, ...
        public var code: String
        /// A sentence for a person: what failed and why.
        public var message: String

        /// Creates a failure from its code and its message.
        public init(code: String, message: String) {
            self.code = code
            self.message = message
        }
    }

    /// The URL as the list wrote it (for a malformed line, the line).
    public var url: String
    /// The line of the list it came from (1-based).
    public var line: Int
    /// The loader's outcome (`downloaded`, `revalidated`, `cached`, `stale`) or `failed`.
    public var outcome: String
    /// The kind the list named or the one guessed from the response; nil when nothing was received.
    public var kind: AssetKind?
    /// The HTTP status of the final response, when there was one.
    public var status: Int?
    /// The size of the body (what is now cached, or what the failed response carried).
    public var bytes: Int64
    /// The body bytes that came over the network for this item.
    public var bytesDownloaded: Int64
    /// Whether the body is in the cache after this item (a `no-store` response is fetched but not kept).
    public var stored: Bool
    /// Why it failed; nil on success.
    public var failure: Failure?
    /// The tier node that answered (`X-Assetpipe-Node`), when the item went through a tier.
    public var node: String?
    /// Why a body that could have been stored is not: the disk cache refused it (full, read-only,
    /// gone). The item still succeeded with the origin's bytes; nil otherwise.
    public var storeFailure: String?
    /// Image variants made (or warmed in the tier) for this item (``Prefetcher/Configuration/variants``).
    public var variants = 0

    /// Creates a result; `node` is nil unless the item went through a tier.
    public init(
        url: String, line: Int, outcome: String, kind: AssetKind?, status: Int?, bytes: Int64,
        bytesDownloaded: Int64, stored: Bool, failure: Failure?, node: String? = nil
    ) {
        self.url = url
        self.line = line
        self.outcome = outcome
        self.kind = kind
        self.status = status
        self.bytes = bytes
        self.bytesDownloaded = bytesDownloaded
        self.stored = stored
        self.failure = failure
        self.node = node
    }

    /// Whether the item succeeded.
    public var succeeded: Bool { failure == nil }

    /// A failed item.
    static func failed(url: String, line: Int, kind: AssetKind?, status: Int?, bytesDownloaded: Int64 = 0, _ failure: Failure) -> PrefetchResult {
        PrefetchResult(
            url: url, line: line, outcome: "failed", kind: kind, status: status, bytes: 0,
            bytesDownloaded: bytesDownloaded, stored: false, failure: failure)
    }
}
