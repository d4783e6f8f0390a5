import AssetImaging
import Crypto
import Foundation

/// Signs and checks the image service's URLs: the signature is the unpadded base64url form of
/// HMAC-SHA256(key, salt + canonical transform + "\n" + source URL), as imgproxy signs its paths.
///
/// - **What is signed is the meaning, not the spelling**: the transform's canonical text
///   (`w=256,h=256,fit=cover,format=webp`, presets expanded) and the source URL as given. The query
///   form and the path form of one request carry the same signature; a request with any parameter
///   changed, added or removed has another canonical text and fails.
/// - Signatures are compared in constant time.
/// - Storyboards (`/v1/storyboard`) are signed by the same key over their own canonical text
///   (``signature(forStoryboard:sprite:source:)``), which no image transform's text can equal.
///
/// ```swift
/// let signer = ImageURLSigner(key: Array(keyText.utf8), salt: Array("salt".utf8))
/// let path = signer.pathTarget(for: ImageTransform(width: 256, format: .webp), source: "https://example.org/a.jpg")
/// // "/v1/image/<signature>/w:256/aHR0cHM6Ly9leGFtcGxlLm9yZy9hLmpwZw.webp"
/// ```
public struct ImageURLSigner: Sendable {
    private let key: [UInt8]
    private let salt: [UInt8]

    /// A signer with `key` (at least 16 bytes are advisable) and an optional `salt` prefixed to
    /// every signed text.
    public init(key: [UInt8], salt: [UInt8] = []) {
        self.key = key
        self.salt = salt
    }

    /// The key as read from a key file: its bytes with trailing newlines and spaces removed.
    public static func keyBytes(fromFile contents: [UInt8]) -> [UInt8] {
        var bytes = contents
        while let last = bytes.last, last == 0x0A || last == 0x0D || last == 0x20 || last == 0x09 { bytes.removeLast() }
        return bytes
    }

    /// The text that is signed for `transform` of `source`.
    static func signedText(transform: ImageTransform, source: String) -> String {
        transform.canonicalText + "\n" + source
    }

    /// The signature of `transform` of `source`.
    public func signature(for transform: ImageTransform, source: String) -> String {
        signature(ofText: Self.signedText(transform: transform, source: source))
    }

    /// Whether `signature` is the signature of `transform` of `source`.
    public func isValid(_ signature: String, for transform: ImageTransform, source: String) -> Bool {
        isValid(signature, ofText: Self.signedText(transform: transform, source: source))
    }

    /// The signature of `text` (the salt prefixed): what every signed kind of URL is signed with.
    func signature(ofText text: String) -> String {
        var message = salt
        message.append(contentsOf: text.utf8)
        let code = HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: key))
        return Base64URL.encode(Array(code))
    }

    /// Whether `signature` is the signature of `text`, compared in constant time.
    func isValid(_ signature: String, ofText text: String) -> Bool {
        guard let given = Base64URL.decode(signature), given.count == 32 else { return false }
        var message = salt
        message.append(contentsOf: text.utf8)
        return HMAC<SHA256>.isValidAuthenticationCode(given, authenticating: message, using: SymmetricKey(data: key))
    }

    /// The signed query form: `/v1/image?url=<source>&w=256&format=webp&sig=<signature>`.
    public func queryTarget(for transform: ImageTransform, source: String) -> String {
        ImageTargets.query(for: transform, source: source, signature: signature(for: transform, source: source))
    }

    /// The signed path form: `/v1/image/<signature>/<options>/<base64url source>[.<ext>]`.
    public func pathTarget(for transform: ImageTransform, source: String) -> String {
        ImageTargets.path(for: transform, source: source, signature: signature(for: transform, source: source))
    }
}

/// The two spellings of an image service request.
public enum ImageTargets {
    /// The query form: `/v1/image?url=<source>&<canonical pairs>[&sig=<signature>]`.
    public static func query(for transform: ImageTransform, source: String, signature: String? = nil) -> String {
        var target = "/v1/image?url=" + percentEncoded(source)
        let items = transform.queryItemsText
        if !items.isEmpty { target += "&" + items }
        if let signature { target += "&sig=" + signature }
        return target
    }

    /// The path form: `/v1/image/<signature or _>/<options or ->/<base64url source>[.<ext>]`, the
    /// format as the extension (none for `auto`) and the other options as `key:value` pairs.
    public static func path(for transform: ImageTransform, source: String, signature: String? = nil) -> String {
        var options = transform
        options.format = .auto
        let canonical = options.canonicalText
        let optionText = canonical == "original"
            ? "-" : canonical.replacingOccurrences(of: "=", with: ":").replacingOccurrences(of: "%", with: "%25")
        var target = "/v1/image/\(signature ?? "_")/\(optionText)/\(Base64URL.encode(Array(source.utf8)))"
        if case .format(let format) = transform.format { target += "." + format.rawValue }
        return target
    }

    /// `text` with everything but unreserved characters percent-encoded.
    static func percentEncoded(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}

/// Unpadded base64url (RFC 4648 section 5), as signatures and path-form sources are written.
enum Base64URL {
    static func encode(_ bytes: [UInt8]) -> String {
        var text = Data(bytes).base64EncodedString()
        text = text.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        while text.hasSuffix("=") { text.removeLast() }
        return text
    }

    /// The bytes of `text` (padding optional), or nil when it is not base64url.
    static func decode(_ text: String) -> [UInt8]? {
        guard text.utf8.allSatisfy({ byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == 0x2D || byte == 0x5F || byte == 0x3D
        }) else { return nil }
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while standard.hasSuffix("=") { standard.removeLast() }
        guard standard.utf8.count % 4 != 1 else { return nil }
        standard += String(repeating: "=", count: (4 - standard.utf8.count % 4) % 4)
        return Data(base64Encoded: standard).map(Array.init)
    }
}
