#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An access key, its secret and, for temporary credentials, a session token and when it expires.
///
/// Its description names the access key only: a secret or a token is never printed or logged.
public struct S3Credentials: Sendable, Hashable, CustomStringConvertible {
    /// The access key id (`AWS_ACCESS_KEY_ID`).
    public var accessKeyID: String
    /// The secret access key (`AWS_SECRET_ACCESS_KEY`); never logged.
    public var secretAccessKey: String
    /// The session token of temporary credentials (`AWS_SESSION_TOKEN`), sent as
    /// `X-Amz-Security-Token` and signed; never logged.
    public var sessionToken: String?
    /// When the session token expires (STS's `Expiration`, `AWS_CREDENTIAL_EXPIRATION`), if known.
    /// A refusal of a request signed after it that does not say why (radosgw's `403 AccessDenied`,
    /// a `HEAD`'s answer, which has no body) is then named `ExpiredToken`. Default nil.
    public var expiration: Date?

    /// Creates credentials.
    public init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil, expiration: Date? = nil) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
        self.expiration = expiration
    }

    /// `S3Credentials(AKIA..., secret redacted)`.
    public var description: String {
        "S3Credentials(\(self.accessKeyID), secret redacted\(self.sessionToken == nil ? "" : ", session token redacted"))"
    }

    /// An ISO 8601 time as STS writes an `Expiration` (`2026-11-29T12:00:53Z`, with or without a
    /// fraction of a second); nil for anything else.
    static func expiration(iso8601 text: String) -> Date? {
        if let date = try? Date(text, strategy: .iso8601) { return date }
        // `.iso8601` takes no fraction: parse without it and add it back
        guard let dot = text.firstIndex(of: "."), let end = text[dot...].firstIndex(where: { !$0.isNumber && $0 != "." }),
            let whole = try? Date(String(text[..<dot]) + String(text[end...]), strategy: .iso8601),
            let fraction = Double("0" + text[dot..<end])
        else { return nil }
        return whole.addingTimeInterval(fraction)
    }
}
