import Foundation

/// What the disk cache knows of an entry, stored beside its bytes as `<hash>.meta.json`.
///
/// The metadata file is the commit record: it is written last, and an entry is served only
/// when its data agrees with the ``size`` and ``checksum`` here. Dates are ISO 8601 (UTC).
public struct CacheMetadata: Sendable, Equatable {
    /// The cache key (by default the normalized URL string).
    public var key: String
    /// The URL the bytes came from, when they came from one.
    public var originalUrlString: String?
    /// When the entry was stored.
    public var createdDate: Date
    /// The response's `ETag`, as sent (with quotes and any `W/`).
    public var eTag: String?
    /// The response's `Last-Modified`, as sent.
    public var lastModified: String?
    /// Reads of the entry, counted in memory and flushed in batches.
    public var accessCount: Int
    /// The last read (or the store, when never read).
    public var lastAccessTime: Date
    /// Length of the data in bytes.
    public var size: Int64
    /// The response's `Content-Type`, when known.
    public var contentType: String?
    /// The kind of the asset; the disk cache counts entries and bytes per kind.
    public var kind: AssetKind
    /// Lowercase hex SHA-256 of the data.
    public var checksum: String
    /// When the storage layer may drop the entry regardless of use (`nil`: only the cache's
    /// own age limit applies). HTTP freshness is not this: a stale entry stays for revalidation.
    public var expirationDate: Date?
    /// The HTTP exchange the bytes came from, for freshness and revalidation.
    public var http: HTTPInfo?

    /// The parts of an HTTP response that RFC 9111 caching needs later.
    public struct HTTPInfo: Sendable, Equatable {
        /// The response's status code (200, 203, 206, ...).
        public var status: Int
        /// Every response header but `Connection` and those it names, in order.
        public var headers: [(name: String, value: String)]
        /// When the request was sent.
        public var requestTime: Date
        /// When the response arrived.
        public var responseTime: Date
        /// The request headers named by the response's `Vary`, lowercased names; `nil` values
        /// for headers the request did not have.
        public var varyRequestHeaders: [(name: String, value: String?)]

        /// Creates the record of an exchange; `varyRequestHeaders` is empty by default.
        public init(
            status: Int, headers: [(name: String, value: String)], requestTime: Date, responseTime: Date,
            varyRequestHeaders: [(name: String, value: String?)] = []
        ) {
            self.status = status
            self.headers = headers
            self.requestTime = requestTime
            self.responseTime = responseTime
            self.varyRequestHeaders = varyRequestHeaders
        }

        /// The first value of a header, by case-insensitive name.
        public func header(_ name: String) -> String? {
            headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
        }

        /// Whether two exchanges are the same: status, times, headers and `Vary` request headers, in order.
        public static func == (lhs: HTTPInfo, rhs: HTTPInfo) -> Bool {
            lhs.status == rhs.status && lhs.requestTime == rhs.requestTime && lhs.responseTime == rhs.responseTime
                && lhs.headers.elementsEqual(rhs.headers, by: { $0.name == $1.name && $0.value == $1.value })
                && lhs.varyRequestHeaders.elementsEqual(rhs.varyRequestHeaders, by: { $0.name == $1.name && $0.value == $1.value })
        }
    }

    /// Creates metadata; `lastAccessTime` defaults to `createdDate`, the optional fields to `nil`.
    public init(
        key: String, originalUrlString: String? = nil, createdDate: Date, eTag: String? = nil,
        lastModified: String? = nil, accessCount: Int = 0, lastAccessTime: Date? = nil, size: Int64,
        contentType: String? = nil, kind: AssetKind, checksum: String, expirationDate: Date? = nil,
        http: HTTPInfo? = nil
    ) {
        self.key = key
        self.originalUrlString = originalUrlString
        self.createdDate = createdDate
        self.eTag = eTag
        self.lastModified = lastModified
        self.accessCount = accessCount
        self.lastAccessTime = lastAccessTime ?? createdDate
        self.size = size
        self.contentType = contentType
        self.kind = kind
        self.checksum = checksum
        self.expirationDate = expirationDate
        self.http = http
    }
}

extension CacheMetadata {
    /// Adds accesses counted elsewhere (in memory, not yet flushed).
    mutating func addAccesses(_ count: Int, lastAccess: Double) {
        accessCount += count
        if lastAccess > lastAccessTime.timeIntervalSince1970 {
            lastAccessTime = Date(timeIntervalSince1970: lastAccess)
        }
    }

    /// The format version written in every metadata file.
    static let formatVersion = 1
    /// Metadata files larger than this are not read (they are not ours).
    static let maxFileSize = 256 * 1024

    /// The metadata as JSON bytes (compact, keys in a fixed order).
    public var jsonBytes: [UInt8] { json.bytes }

    var json: CompactJSON {
        func opt(_ s: String?) -> CompactJSON { s.map(CompactJSON.string) ?? .null }
        func date(_ d: Date) -> CompactJSON { .string(ISO8601.string(from: d)) }
        var members: [(String, CompactJSON)] = [
            ("format", .number(Double(Self.formatVersion))),
            ("key", .string(key)),
            ("originalUrlString", opt(originalUrlString)),
            ("createdDate", date(createdDate)),
            ("eTag", opt(eTag)),
            ("lastModified", opt(lastModified)),
            ("accessCount", .number(Double(accessCount))),
            ("lastAccessTime", date(lastAccessTime)),
            ("size", .number(Double(size))),
            ("contentType", opt(contentType)),
            ("kind", .string(kind.rawValue)),
            ("checksum", .string(checksum)),
            ("expirationDate", expirationDate.map(date) ?? .null),
        ]
        if let http { members.append(("http", http.json)) }
        return .object(members)
    }

    /// Reads metadata written by ``jsonBytes``; `nil` when the bytes are not whole, valid metadata.
    public init?(jsonBytes: [UInt8]) {
        guard let json = CompactJSON.parse(jsonBytes), let value = Self(json: json) else { return nil }
        self = value
    }

    init?(json: CompactJSON) {
        func date(_ name: String, in object: CompactJSON = json) -> Date? {
            object[name]?.stringValue.flatMap(ISO8601.date(from:))
        }
        func optString(_ name: String) -> String?? { json.optionalString(name) }
        guard json["format"]?.int64Value == Int64(Self.formatVersion),
              let key = json["key"]?.stringValue,
              let createdDate = date("createdDate"),
              let accessCount = json["accessCount"]?.int64Value, accessCount >= 0,
              let lastAccessTime = date("lastAccessTime"),
              let size = json["size"]?.int64Value, size >= 0,
              let kind = json["kind"]?.stringValue.flatMap(AssetKind.init(rawValue:)),
              let checksum = json["checksum"]?.stringValue, checksum.utf8.count == 64,
              let originalUrlString = optString("originalUrlString"),
              let eTag = optString("eTag"), let lastModified = optString("lastModified"),
              let contentType = optString("contentType")
        else { return nil }
        var expirationDate: Date?
        if let value = json["expirationDate"], value != .null {
            guard let parsed = date("expirationDate") else { return nil }
            expirationDate = parsed
        }
        var http: HTTPInfo?
        if let object = json["http"], object != .null {
            guard let parsed = HTTPInfo(json: object) else { return nil }
            http = parsed
        }
        self.init(
            key: key, originalUrlString: originalUrlString, createdDate: createdDate, eTag: eTag,
            lastModified: lastModified, accessCount: Int(accessCount), lastAccessTime: lastAccessTime,
            size: size, contentType: contentType, kind: kind, checksum: checksum,
            expirationDate: expirationDate, http: http)
    }
}
