import Crypto

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// AWS Signature Version 4 in the `Authorization` header, written on swift-crypto (neither Soto nor
/// its signer is a dependency of the package).
///
/// - The canonical request is S3's: the path is URI-encoded once and not normalized (`/a b` signs as
///   `/a%20b`, `%` as `%25`, UTF-8 byte by byte); query names and values are encoded the same way
///   (`/` too) and sorted.
/// - Header names are lowercased and sorted, values trimmed with inner runs of spaces made one,
///   repeated fields joined with commas.
/// - `x-amz-date` and, with a session token, `x-amz-security-token` are added and signed.
/// - Nothing here logs: the signature and the key it is made with stay in the returned value.
///
/// ```swift
/// let signer = SigV4Signer(credentials: credentials, region: "us-east-1", service: "s3")
/// let signed = signer.sign(method: "GET", path: "/bucket/a b.png", query: [], headers: [("host", "127.0.0.1:7480")],
///                          payloadHash: SigV4Signer.emptyPayloadHash, date: Date())
/// ```
public struct SigV4Signer: Sendable {
    /// The key and secret signed with.
    public var credentials: S3Credentials
    /// The region of the credential scope (`us-east-1`...).
    public var region: String
    /// The service of the credential scope: `s3`.
    public var service: String

    /// The hex SHA-256 of an empty payload.
    public static let emptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    /// Creates a signer.
    public init(credentials: S3Credentials, region: String, service: String = "s3") {
        self.credentials = credentials
        self.region = region
        self.service = service
    }

    /// What a signature adds to a request: the fields to send with it.
    public struct Signed: Sendable {
        /// The `Authorization` value.
        public var authorization: String
        /// The `X-Amz-Date` value (`20150830T123600Z`).
        public var amzDate: String
        /// The fields to add to the request: `X-Amz-Date`, any `X-Amz-Security-Token`, `Authorization`.
        public var fields: [(name: String, value: String)]
        /// The names signed, `;`-separated.
        public var signedHeaders: String
        /// The canonical request that was signed (for tests and diagnosis; holds no secret).
        public var canonicalRequest: String
    }

    /// Signs a request.
    ///
    /// - Parameters:
    ///   - method: `GET`, `PUT`...
    ///   - path: the path as bytes mean it, not percent-encoded (`/bucket/a b`); empty means `/`.
    ///   - query: the query's names and values, not encoded (`("uploadId", "2~x")`, `("uploads", "")`).
    ///   - headers: the fields to sign, `host` among them.
    ///   - payloadHash: the hex SHA-256 of the body, or `UNSIGNED-PAYLOAD`.
    ///   - date: the signing time.
    public func sign(
        method: String, path: String, query: [(String, String)], headers: [(String, String)], payloadHash: String, date: Date
    ) -> Signed {
        let amzDate = Self.amzDate(date)
        let day = String(amzDate.prefix(8))
        var signing = headers
        signing.append(("x-amz-date", amzDate))
        if let token = self.credentials.sessionToken {
            signing.append(("x-amz-security-token", token))
        }
        let canonicalHeaders = Self.canonicalHeaders(signing)
        let signedHeaders = canonicalHeaders.map(\.name).joined(separator: ";")
        let canonicalRequest = [
            method,
            Self.canonicalPath(path),
            Self.canonicalQuery(query),
            canonicalHeaders.map { "\($0.name):\($0.value)\n" }.joined(),
            signedHeaders,
            payloadHash,
        ].joined(separator: "\n")
        let scope = "\(day)/\(self.region)/\(self.service)/aws4_request"
        let stringToSign = "AWS4-HMAC-SHA256\n\(amzDate)\n\(scope)\n\(Self.sha256Hex(Array(canonicalRequest.utf8)))"
        let signature = Self.hex(Self.hmac(key: self.signingKey(day: day), Array(stringToSign.utf8)))
        let authorization =
            "AWS4-HMAC-SHA256 Credential=\(self.credentials.accessKeyID)/\(scope), SignedHeaders=\(signedHeaders), Signature=\(signature)"
        var fields: [(name: String, value: String)] = [("X-Amz-Date", amzDate)]
        if let token = self.credentials.sessionToken {
            fields.append(("X-Amz-Security-Token", token))
        }
        fields.append(("Authorization", authorization))
        return Signed(
            authorization: authorization, amzDate: amzDate, fields: fields, signedHeaders: signedHeaders,
            canonicalRequest: canonicalRequest)
    }

    /// `kSigning = HMAC(HMAC(HMAC(HMAC("AWS4" + secret, day), region), service), "aws4_request")`.
    private func signingKey(day: String) -> [UInt8] {
        var key = Self.hmac(key: Array(("AWS4" + self.credentials.secretAccessKey).utf8), Array(day.utf8))
        key = Self.hmac(key: key, Array(self.region.utf8))
        key = Self.hmac(key: key, Array(self.service.utf8))
        return Self.hmac(key: key, Array("aws4_request".utf8))
    }

    /// The hex SHA-256 of `bytes`: the payload hash of a body.
    public static func sha256Hex(_ bytes: some Sequence<UInt8>) -> String {
        var hasher = SHA256()
        hasher.update(data: Array(bytes))
        return Self.hex(Array(hasher.finalize()))
    }

    static func hmac(key: [UInt8], _ message: [UInt8]) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: key)))
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
