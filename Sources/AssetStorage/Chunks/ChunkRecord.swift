import Foundation

/// What a chunk store knows of one resource: its version (validator, length) and which of its
/// fixed-size chunks are on disk, with each chunk's last access.
///
/// The record file (`<hash>/record.json`) is the commit record: a chunk is renamed into place
/// before the record claims it, and unclaimed before it is deleted, so a claimed chunk is whole.
public struct ChunkRecord: Sendable, Equatable {
    /// A present chunk: its length (the chunk size, or less for the last), its last access
    /// (seconds since 1970) and the lowercase hex SHA-256 of its bytes (nil in records written
    /// before chunks carried one), which ``ChunkStore/verify()`` checks.
    public struct Chunk: Sendable, Equatable {
        /// The chunk's length in bytes.
        public var length: Int
        /// When the chunk was last read or written, in seconds since 1970.
        public var lastAccess: Double
        /// The SHA-256 of the chunk's bytes in lowercase hex, checked by `ChunkStore.verify`; nil for
        /// a chunk recorded before checksums were kept.
        public var checksum: String?
    }

    /// The cache key.
    public var key: String
    /// Names this version of the resource; a new version gets a new generation, and chunks of
    /// one generation are never served as another's.
    public var generation: UInt64
    /// The chunk size the chunks were cut at.
    public var chunkSize: Int
    /// When this version was first stored.
    public var createdDate: Date
    /// What the resource is (length, validator, content type, the HTTP exchange).
    public var info: ResourceInfo
    /// The present chunks by index.
    public internal(set) var chunks: [Int: Chunk]

    /// Bytes of all present chunks.
    public var presentBytes: Int64 { chunks.values.reduce(0) { $0 + Int64($1.length) } }

    /// Whether chunk `index` is present.
    public func contains(chunk index: Int) -> Bool { chunks[index] != nil }

    /// How many chunks the whole resource has, when its length is known.
    public var chunkCount: Int? {
        info.totalLength.map { Int(($0 + Int64(chunkSize) - 1) / Int64(chunkSize)) }
    }

    /// The length chunk `index` must have: the chunk size, or what is left for the last chunk;
    /// `nil` when the chunk lies past the known end.
    public func expectedLength(ofChunk index: Int) -> Int? {
        guard index >= 0 else { return nil }
        let start = Int64(index) * Int64(chunkSize)
        guard let total = info.totalLength else { return chunkSize }
        guard start < total else { return nil }
        return Int(min(Int64(chunkSize), total - start))
    }
}

extension ChunkRecord {
    /// The facts of a resource version that a chunk store keeps besides its chunks. The store
    /// does not interpret them (the HTTP layer above decides what a version is).
    public struct ResourceInfo: Sendable, Equatable {
        /// The total length in bytes, once known.
        public var totalLength: Int64?
        /// The validator: the `ETag` as sent (quotes and any `W/`) ...
        public var eTag: String?
        /// ... and the `Last-Modified` as sent.
        public var lastModified: String?
        /// The `Content-Type` of the resource, if known.
        public var contentType: String?
        /// The URL the resource came from, if any.
        public var originalUrlString: String?
        /// Whether the origin answers range requests (false: it always sends the whole body).
        public var rangesSupported: Bool
        /// The exchange that last confirmed this version, for freshness and revalidation.
        public var http: CacheMetadata.HTTPInfo?

        /// Creates the facts of a version; everything unknown by default, ranges supported.
        public init(
            totalLength: Int64? = nil, eTag: String? = nil, lastModified: String? = nil, contentType: String? = nil,
            originalUrlString: String? = nil, rangesSupported: Bool = true, http: CacheMetadata.HTTPInfo? = nil
        ) {
            self.totalLength = totalLength
            self.eTag = eTag
            self.lastModified = lastModified
            self.contentType = contentType
            self.originalUrlString = originalUrlString
            self.rangesSupported = rangesSupported
            self.http = http
        }
    }
}

extension ChunkRecord {
    static let formatVersion = 1
    /// Record files larger than this are not read.
    static let maxFileSize = 4 << 20

    var jsonBytes: [UInt8] {
        func opt(_ s: String?) -> CompactJSON { s.map(CompactJSON.string) ?? .null }
        let list = chunks.keys.sorted().map { index -> CompactJSON in
            let chunk = chunks[index]!
            var fields: [CompactJSON] = [.number(Double(index)), .number(Double(chunk.length)), .number((chunk.lastAccess * 1000).rounded())]
            if let checksum = chunk.checksum { fields.append(.string(checksum)) }
            return .array(fields)
        }
        return CompactJSON.object([
            ("format", .number(Double(Self.formatVersion))),
            ("key", .string(key)),
            ("generation", .string(ChunkStore.hex(generation))),
            ("chunkSize", .number(Double(chunkSize))),
            ("createdDate", .string(ISO8601.string(from: createdDate))),
            ("totalLength", info.totalLength.map { .number(Double($0)) } ?? .null),
            ("eTag", opt(info.eTag)),
            ("lastModified", opt(info.lastModified)),
            ("contentType", opt(info.contentType)),
            ("originalUrlString", opt(info.originalUrlString)),
            ("rangesSupported", .bool(info.rangesSupported)),
            ("http", info.http?.json ?? .null),
            ("chunks", .array(list)),
        ]).bytes
    }

    /// Reads a record written by ``jsonBytes``; `nil` for anything that is not a whole, valid record.
    init?(jsonBytes: [UInt8]) {
        guard let json = CompactJSON.parse(jsonBytes),
              json["format"]?.int64Value == Int64(Self.formatVersion),
              let key = json["key"]?.stringValue,
              let generation = json["generation"]?.stringValue.flatMap({ UInt64($0, radix: 16) }),
              let chunkSize = json["chunkSize"]?.int64Value, chunkSize > 0, chunkSize <= Int64(Int32.max),
              let created = json["createdDate"]?.stringValue.flatMap(ISO8601.date(from:)),
              case let .bool(rangesSupported)? = json["rangesSupported"],
              case let .array(list)? = json["chunks"]
        else { return nil }
        func optString(_ name: String) -> String?? { json.optionalString(name) }
        guard let eTag = optString("eTag"), let lastModified = optString("lastModified"),
              let contentType = optString("contentType"), let url = optString("originalUrlString")
        else { return nil }
        var totalLength: Int64?
        if let value = json["totalLength"], value != .null {
            guard let n = value.int64Value, n >= 0 else { return nil }
            totalLength = n
        }
        var http: CacheMetadata.HTTPInfo?
        if let value = json["http"], value != .null {
            guard let parsed = CacheMetadata.HTTPInfo(json: value) else { return nil }
            http = parsed
        }
        self.key = key
        self.generation = generation
        self.chunkSize = Int(chunkSize)
        self.createdDate = created
        self.info = ResourceInfo(
            totalLength: totalLength, eTag: eTag, lastModified: lastModified, contentType: contentType,
            originalUrlString: url, rangesSupported: rangesSupported, http: http)
        var chunks: [Int: Chunk] = [:]
        for item in list {
            // [index, length, access ms] or, since chunks carry checksums, [..., sha256 hex]
            guard case let .array(fields) = item, fields.count == 3 || fields.count == 4,
                  let index = fields[0].int64Value, index >= 0, index < Int64(Int32.max),
                  let length = fields[1].int64Value, length > 0, length <= chunkSize,
                  let access = fields[2].int64Value
            else { return nil }
            var checksum: String?
            if fields.count == 4 {
                guard let text = fields[3].stringValue, Self.isChecksum(text) else { return nil }
                checksum = text
            }
            chunks[Int(index)] = Chunk(length: Int(length), lastAccess: Double(access) / 1000, checksum: checksum)
        }
        self.chunks = chunks
        // a claim the length contradicts is not whole
        for (index, chunk) in chunks where expectedLength(ofChunk: index).map({ $0 != chunk.length }) ?? true {
            return nil
        }
    }

    /// 64 lowercase hex digits.
    static func isChecksum(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) }
    }
}
