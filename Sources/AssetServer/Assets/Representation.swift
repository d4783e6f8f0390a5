import AssetLoading
import AssetStorage
import Foundation
import HTTPTypes
import NIOCore

/// A stored answer ready to be sent: its status, the header fields that describe it, its
/// validators, and where its bytes are.
struct Representation: Sendable {
    enum Source: Sendable {
        /// In memory (a hot body, or an answer that may not be stored).
        case memory(ByteBuffer)
        /// A checked data file of the disk cache, read piece by piece as it is sent.
        case file(DiskCache.DataFile)
    }

    /// The status of the stored response (200 for assets; anything in reverse-proxy mode).
    var status: Int
    /// The fields to send, without `Content-Length`, `Content-Range` and `Age`.
    var fields: HTTPFields
    var eTag: String?
    var lastModified: String?
    var length: Int64
    var source: Source
    /// The current age in seconds (RFC 9111 4.2.3) of a stored answer; nil for one that was not
    /// stored.
    var age: Int?
    /// Where it came from: `memory`, `disk`, `revalidated`, `miss`, `stale`, `uncached`.
    var cacheStatus: String

    /// Whether conditional and range requests apply: a successful, complete representation.
    var isRangeable: Bool { status == 200 }
}

/// The header fields of a stored response worth passing on.
enum PassedFields {
    /// The fields the asset API passes on from the origin.
    static let assetFields: [HTTPField.Name] = [
        .contentType, .eTag, .lastModified, .cacheControl, .expires, .date, .contentEncoding, .contentLanguage,
    ]

    /// Fields never passed on from a stored response: hop-by-hop ones and those the server computes.
    static let recomputed: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "te", "transfer-encoding", "upgrade", "trailer",
        "content-length", "content-range", "age", "accept-ranges",
    ]

    /// The asset API's fields of a stored response: ``assetFields`` only.
    static func asset(_ headers: HeaderFields) -> HTTPFields {
        var fields = HTTPFields()
        for name in assetFields {
            if let value = headers[name.rawName] { fields[name] = value }
        }
        return fields
    }

    /// A reverse proxy's fields of a stored response: all of them but ``recomputed`` (and fields
    /// whose names HTTP does not allow).
    static func proxied(_ headers: HeaderFields) -> HTTPFields {
        var fields = HTTPFields()
        for field in headers {
            guard !recomputed.contains(field.name.lowercased()), let name = HTTPField.Name(field.name) else { continue }
            fields.append(HTTPField(name: name, value: field.value))
        }
        return fields
    }
}

extension HTTPField.Name {
    static let pragma = HTTPField.Name("Pragma")!
    static let xCache = HTTPField.Name("X-Assetpipe-Cache")!
    static let xNode = HTTPField.Name("X-Assetpipe-Node")!
    static let xImageWidth = HTTPField.Name("X-Image-Width")!
    static let xImageHeight = HTTPField.Name("X-Image-Height")!
    static let xImageChannels = HTTPField.Name("X-Image-Channels")!
    static let xImageFormat = HTTPField.Name("X-Image-Source-Format")!
    static let xImageSourceWidth = HTTPField.Name("X-Image-Source-Width")!
    static let xImageSourceHeight = HTTPField.Name("X-Image-Source-Height")!
}
