import AssetLoading
import AsyncHTTPClient
import Logging
import NIOCore
import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A bucket of the variants that processes made, shared by every process configured with it: a
/// local miss reads it before transforming, and a variant made is written to it.
///
/// - **The object** of a variant is named by its ``VariantKey`` (which names the source's validator
///   and the renderer's version, so a changed source or renderer never reads an old object):
///   `PREFIX/` and the key's SHA-256 in hex. Its `Content-Type` carries the format and size, as
///   the disk cache's derived entries do.
/// - **Writes** go in the background, at most ``Configuration-swift.struct/maxPendingWrites`` at
///   once (a variant made while that many are pending is not written: ``Statistics-swift.struct/dropped``);
///   they never delay an answer. A `PUT` stores the whole object or nothing.
/// - **Reads** wait at most ``Configuration-swift.struct/readTimeout``; a store that is down, slow or
///   refuses is a miss, logged at debug: the variant is made locally and nothing fails because of
///   the store.
/// - Call ``waitForWrites()`` before shutting the manager down (its HTTP client carries the writes).
///
/// ```swift
/// var images = ImageUtil.Configuration()
/// images.derivedStore = DerivedStore.Configuration(s3: try .standard(), location: S3Location(bucket: "variants", key: "v1"))
/// let util = ImageUtil(manager: manager, configuration: images)
/// ```
public final class DerivedStore: Sendable {
    /// Where the store is and how long it may take.
    public struct Configuration: Sendable {
        /// The object store.
        public var s3: S3Client.Configuration
        /// The bucket and the key prefix the objects go under (`s3://variants/v1` puts them in
        /// `variants` under `v1/`).
        public var location: S3Location
        /// The longest wait for a read before the variant is made locally. Default 2 seconds.
        public var readTimeout: Duration
        /// The writes in flight at most. Default 32.
        public var maxPendingWrites: Int
        /// The longest one write may take. Default 60 seconds.
        public var writeTimeout: Duration

        /// Creates a configuration; the parameters not given default to the values documented on
        /// their properties.
        public init(
            s3: S3Client.Configuration, location: S3Location, readTimeout: Duration = .seconds(2), maxPendingWrites: Int = 32,
            writeTimeout: Duration = .seconds(60)
        ) {
            self.s3 = s3
            self.location = location
            self.readTimeout = readTimeout
            self.maxPendingWrites = maxPendingWrites
            self.writeTimeout = writeTimeout
        }
    }

    /// What the store did since it was made.
    public struct Statistics: Sendable, Hashable {
        /// Reads that found the variant.
        public var hits = 0
        /// Reads that did not (missing, or the store failed or was slow).
        public var misses = 0
        /// Objects written (variants and source records).
        public var written = 0
        /// Writes that failed.
        public var failed = 0
        /// Objects not written because ``Configuration-swift.struct/maxPendingWrites`` were pending.
        public var dropped = 0
        /// Source records read that were found (``DerivedStore/sourceRecord(forCacheKey:)``).
        public var recordHits = 0
        /// Source records read that were missing, unreadable, or the store failed or was slow.
        public var recordMisses = 0
    }

    private struct State {
        var statistics = Statistics()
        var pending: [Int: Task<Void, Never>] = [:]
        var next = 0
        /// The source records written (``recordSource(_:)``), so that each is sent once.
        var recordedSources = Set<String>()
    }

    /// Where the store is and how long it may take.
    public let configuration: Configuration
    let client: S3Client
    let logger: Logger
    private let state = Mutex(State())

    /// Creates a store that sends through `httpClient` (the manager's loader's, in ``ImageUtil``).
    public init(configuration: Configuration, httpClient: HTTPClient, logger: Logger = Logger(label: "AssetPipeline.DerivedStore")) {
        self.configuration = configuration
        self.client = S3Client(configuration: configuration.s3, httpClient: httpClient, logger: logger)
        self.logger = logger
    }

    /// The object of a variant key: the prefix, `/`, and the key's SHA-256 in hex.
    public func location(forVariantKey key: String) -> S3Location {
        var prefix = self.configuration.location.key
        while prefix.hasSuffix("/") { prefix.removeLast() }
        let name = SigV4Signer.sha256Hex(Array(key.utf8))
        return S3Location(bucket: self.configuration.location.bucket, key: prefix.isEmpty ? name : "\(prefix)/\(name)")
    }

    /// The counts so far.
    public var statistics: Statistics { self.state.withLock { $0.statistics } }

    /// The stored bytes and `Content-Type` of a variant; nil when it is missing, larger than
    /// `maxBytes`, or the store fails or takes longer than the read timeout (never thrown).
    func read(variantKey: String, maxBytes: Int) async -> (data: Data, contentType: String)? {
        let found = await self.get(self.location(forVariantKey: variantKey), maxBytes: maxBytes)
        self.state.withLock { state in
            if found != nil { state.statistics.hits += 1 } else { state.statistics.misses += 1 }
        }
        return found
    }

    /// The bytes and `Content-Type` of the object at `location`; nil when it is missing, larger
    /// than `maxBytes`, or the store fails or takes longer than the read timeout (never thrown).
    func get(_ location: S3Location, maxBytes: Int) async -> (data: Data, contentType: String)? {
        let deadline = NIODeadline.now() + Self.timeAmount(self.configuration.readTimeout)
        do {
            let response = try await self.client.send(.GET, location, deadline: deadline)
            guard response.status == .ok, let contentType = response.headers.first(name: "Content-Type") else { return nil }
            let body = try await response.body.collect(upTo: maxBytes)
            return (Data(body.readableBytesView), contentType)
        } catch {
            if (error as? LoaderError)?.status != 404 {
                self.logger.debug("derived store read failed", metadata: ["object": "\(location)", "error": "\(error)"])
            }
            return nil
        }
    }

    /// Counts a source record read (``sourceRecord(forCacheKey:)``).
    func countRecordRead(found: Bool) {
        self.state.withLock { state in
            if found { state.statistics.recordHits += 1 } else { state.statistics.recordMisses += 1 }
        }
    }

    /// Writes a variant in the background, unless ``Configuration-swift.struct/maxPendingWrites``
    /// are pending; returns at once.
    func write(variantKey: String, data: Data, contentType: String) {
        self.put(self.location(forVariantKey: variantKey), body: Array(data), contentType: contentType)
    }

    /// Puts `body` at `location` in the background, unless ``Configuration-swift.struct/maxPendingWrites``
    /// are pending (then counted as dropped); returns at once. `admit` runs under the lock first and
    /// may refuse the write (returning false), uncounted.
    func put(_ location: S3Location, body: [UInt8], contentType: String, admit: ((inout Set<String>) -> Bool)? = nil) {
        let timeout = Self.timeAmount(self.configuration.writeTimeout)
        self.state.withLock { state in
            if let admit, !admit(&state.recordedSources) { return }
            guard state.pending.count < max(1, self.configuration.maxPendingWrites) else {
                state.statistics.dropped += 1
                return
            }
            let id = state.next
            state.next += 1
            state.pending[id] = Task {
                var ok = true
                do {
                    try await self.client.put(location, body: body, contentType: contentType, deadline: .now() + timeout)
                } catch {
                    ok = false
                    self.logger.debug("derived store write failed", metadata: ["object": "\(location)", "error": "\(error)"])
                }
                self.state.withLock { state in
                    state.pending[id] = nil
                    if ok { state.statistics.written += 1 } else { state.statistics.failed += 1 }
                }
            }
        }
    }

    static func timeAmount(_ duration: Duration) -> TimeAmount {
        let (seconds, attoseconds) = duration.components
        return .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }

    /// Waits until the writes started so far have ended.
    public func waitForWrites() async {
        while true {
            let pending = self.state.withLock { Array($0.pending.values) }
            if pending.isEmpty { return }
            for task in pending { await task.value }
        }
    }
}
