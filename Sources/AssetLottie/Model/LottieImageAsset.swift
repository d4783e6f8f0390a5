import Foundation

/// An image asset: `id`, size `w` x `h`, file name or `data:` URL `p`, folder `u`, `e` 1 when embedded.
public struct LottieImageAsset: Sendable, Equatable {
    /// Where the image's bytes are.
    public enum Source: Sendable, Equatable {
        /// Embedded: a `data:` URL's media type and decoded bytes.
        case embedded(mediaType: String, data: Data)
        /// A file next to the animation (`u` + `p`).
        case external(path: String)
        /// `p` claims to be a `data:` URL but cannot be decoded.
        case malformed
    }

    /// `id`: what the `refId` of image layers names.
    public var id: String?
    /// `nm`: the asset's name.
    public var name: String?
    /// `w`: the image's width.
    public var width: Double?
    /// `h`: the image's height.
    public var height: Double?
    /// `p`: a file name, or a `data:` URL.
    public var path: String
    /// `u`: the folder of `p`.
    public var directory: String?
    /// `e`: 1 when `p` is embedded data (real files set it with a plain file name too).
    public var embedded: Int?
    /// Members this model does not type, kept as they came.
    public var extra: JSONObject

    /// Creates an image asset; the members left `nil` are left out of ``json``.
    public init(id: String?, path: String, directory: String? = nil, embedded: Int? = nil,
                width: Double? = nil, height: Double? = nil, extra: JSONObject = JSONObject()) {
        self.id = id
        self.path = path
        self.directory = directory
        self.embedded = embedded
        self.width = width
        self.height = height
        self.extra = extra
    }

    init(object: JSONObject) {
        self.init(id: nil, path: "")
        for member in object.uniqueMembers {
            switch member.key {
            case "id": if let text = member.value.stringValue { id = text; continue }
            case "nm": if let text = member.value.stringValue { name = text; continue }
            case "w": if let number = member.value.doubleValue { width = number; continue }
            case "h": if let number = member.value.doubleValue { height = number; continue }
            case "p": if let text = member.value.stringValue { path = text; continue }
            case "u": if let text = member.value.stringValue { directory = text; continue }
            case "e": if case .int(let flag) = member.value { embedded = flag; continue }
            default: break
            }
            extra.members.append(member)
        }
    }

    /// The asset as JSON: the typed members first (`p` always), then those in ``extra``.
    public var json: JSONValue {
        var object = JSONObject()
        object.append("id", id.map(JSONValue.string))
        object.append("nm", name.map(JSONValue.string))
        object.append("w", width.map(JSONValue.double))
        object.append("h", height.map(JSONValue.double))
        object.append("u", directory.map(JSONValue.string))
        object.append("p", .string(path))
        object.append("e", embedded.map(JSONValue.int))
        object.members += extra.members
        return .object(object)
    }

    /// `true` when `p` is a `data:` URL.
    public var isDataURL: Bool { path.utf8.starts(with: "data:".utf8) }

    /// Where the bytes are: a `data:` URL is decoded (base64 or percent-encoded); anything else is a path.
    public var source: Source {
        guard isDataURL else {
            return .external(path: (directory ?? "") + path)
        }
        guard let comma = path.firstIndex(of: ",") else { return .malformed }
        let header = path[path.index(path.startIndex, offsetBy: 5)..<comma]
        let payload = path[path.index(after: comma)...]
        let isBase64 = header.hasSuffix(";base64")
        let mediaType = isBase64 ? String(header.dropLast(7)) : String(header)
        if isBase64 {
            guard let data = Data(base64Encoded: String(payload), options: .ignoreUnknownCharacters) else { return .malformed }
            return .embedded(mediaType: mediaType, data: data)
        }
        guard let decoded = String(payload).removingPercentEncoding else { return .malformed }
        return .embedded(mediaType: mediaType, data: Data(decoded.utf8))
    }
}
