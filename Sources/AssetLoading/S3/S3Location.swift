#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An object named by an `s3://bucket/key` URL.
///
/// The key is written as a URL path is: percent-encoded (`%20` a space, `%25` a `%`, `%2B` or `+` a
/// `+`, UTF-8 bytes for the rest) and decoded here, so `s3://photos/a%20b+%25.png` names the key
/// `a b+%.png`. The bucket follows S3's rules for names (3 to 63 of `a-z 0-9 . -`).
public struct S3Location: Sendable, Hashable, CustomStringConvertible {
    /// The bucket.
    public var bucket: String
    /// The key, decoded (may be empty for the bucket itself).
    public var key: String

    /// Creates a location from its parts.
    public init(bucket: String, key: String) {
        self.bucket = bucket
        self.key = key
    }

    /// Parses `s3://bucket/key`. Throws ``LoaderError/invalidURL``.
    public init(url: String) throws(LoaderError) {
        guard Self.isS3(url), let components = URLComponents(string: url), let bucket = components.host, !bucket.isEmpty else {
            throw LoaderError.invalidURL.with(message: "not an s3://bucket/key URL: \(url)")
        }
        guard Self.isBucketName(bucket) else {
            throw LoaderError.invalidURL.with(message: "'\(bucket)' is not an S3 bucket name (3 to 63 of a-z, 0-9, '.', '-')")
        }
        guard components.port == nil, components.user == nil, components.password == nil, components.query == nil else {
            throw LoaderError.invalidURL.with(message: "an s3:// URL names a bucket and a key only: \(url)")
        }
        var path = Substring(components.percentEncodedPath)
        if path.first == "/" { path = path.dropFirst() }
        guard let key = String(path).removingPercentEncoding else {
            throw LoaderError.invalidURL.with(message: "the key of \(url) is not valid percent-encoded UTF-8")
        }
        self.bucket = bucket
        self.key = key
    }

    /// Whether `url` starts with `s3://` (any case).
    public static func isS3(_ url: String) -> Bool {
        url.utf8.count > 5 && url.prefix(5).lowercased() == "s3://"
    }

    /// S3's rule for bucket names: 3 to 63 characters of `a-z 0-9 . -`, starting and ending with a
    /// letter or digit.
    public static func isBucketName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard (3...63).contains(bytes.count) else { return false }
        func alnum(_ byte: UInt8) -> Bool {
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
        }
        guard alnum(bytes[0]), alnum(bytes[bytes.count - 1]) else { return false }
        return bytes.allSatisfy { alnum($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-") }
    }

    /// `s3://bucket/key` with the key percent-encoded as a path (`/` kept).
    public var url: String {
        "s3://\(self.bucket)/\(SigV4Signer.uriEncode(self.key, keepSlash: true))"
    }

    /// ``url``.
    public var description: String { self.url }
}
