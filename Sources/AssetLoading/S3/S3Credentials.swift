/// An access key, its secret and, for temporary credentials, a session token.
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

    /// Creates credentials.
    public init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
    }

    /// `S3Credentials(AKIA..., secret redacted)`.
    public var description: String {
        "S3Credentials(\(self.accessKeyID), secret redacted\(self.sessionToken == nil ? "" : ", session token redacted"))"
    }
}
