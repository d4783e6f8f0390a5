import Foundation

/// The radosgw the S3 tests talk to: `scripts/radosgw start` (run by `scripts/test`) prints its
/// endpoint and user as `ASSETPIPE_TEST_S3_ENDPOINT`, `ASSETPIPE_TEST_S3_ACCESS_KEY`,
/// `ASSETPIPE_TEST_S3_SECRET_KEY` and `ASSETPIPE_TEST_S3_REGION`; and for temporary credentials a
/// gateway of the same store with STS on, `ASSETPIPE_TEST_S3_STS_ENDPOINT`, and the user's session
/// tokens, `ASSETPIPE_TEST_S3_SESSION_*` (valid) and `ASSETPIPE_TEST_S3_EXPIRED_*` (expired).
///
/// Without them ``current()`` throws, so a test that needs the store fails, never passes unrun;
/// `ASSETPIPE_TEST_S3=skip` is the explicit way out (``isSkipped``) for a run that means to leave
/// these tests out.
public struct TestObjectStore: Sendable {
    /// `http://127.0.0.1:PORT`.
    public var endpoint: String
    /// The test user's access key.
    public var accessKey: String
    /// The test user's secret.
    public var secretKey: String
    /// The signing region.
    public var region: String
    /// A second gateway of the same store, with STS on (the main one answers a wrong secret as AWS
    /// does only with it off): where the session tokens are taken.
    public var stsEndpoint: String?
    /// Temporary credentials of the user that are good for hours (`ASSETPIPE_TEST_S3_SESSION_*`).
    public var session: Session?
    /// Temporary credentials of the user that expired minutes before the store started
    /// (`ASSETPIPE_TEST_S3_EXPIRED_*`).
    public var expiredSession: Session?

    /// Temporary credentials from the store's STS (`GetSessionToken`).
    public struct Session: Sendable {
        /// The temporary access key.
        public var accessKey: String
        /// Its secret.
        public var secretKey: String
        /// The session token.
        public var token: String
        /// When it expires, as STS wrote it (ISO 8601).
        public var expiration: String

        /// The session named `PREFIX` in `environment` (`PREFIX_ACCESS_KEY`, `_SECRET_KEY`,
        /// `_TOKEN`, `_EXPIRATION`); nil when one is missing.
        static func from(_ environment: [String: String], prefix: String) -> Session? {
            guard let accessKey = environment["\(prefix)_ACCESS_KEY"], let secretKey = environment["\(prefix)_SECRET_KEY"],
                let token = environment["\(prefix)_TOKEN"], let expiration = environment["\(prefix)_EXPIRATION"]
            else { return nil }
            return Session(accessKey: accessKey, secretKey: secretKey, token: token, expiration: expiration)
        }
    }

    /// Whether `ASSETPIPE_TEST_S3=skip` asks to leave the object-store tests out.
    public static var isSkipped: Bool {
        ProcessInfo.processInfo.environment["ASSETPIPE_TEST_S3"] == "skip"
    }

    /// The store from the environment; throws when it is not set, saying how to start one.
    public static func current() throws -> TestObjectStore {
        let environment = ProcessInfo.processInfo.environment
        guard let endpoint = environment["ASSETPIPE_TEST_S3_ENDPOINT"], !endpoint.isEmpty,
            let accessKey = environment["ASSETPIPE_TEST_S3_ACCESS_KEY"], let secretKey = environment["ASSETPIPE_TEST_S3_SECRET_KEY"]
        else {
            throw Missing()
        }
        return TestObjectStore(
            endpoint: endpoint, accessKey: accessKey, secretKey: secretKey,
            region: environment["ASSETPIPE_TEST_S3_REGION"] ?? "us-east-1",
            stsEndpoint: environment["ASSETPIPE_TEST_S3_STS_ENDPOINT"],
            session: Session.from(environment, prefix: "ASSETPIPE_TEST_S3_SESSION"),
            expiredSession: Session.from(environment, prefix: "ASSETPIPE_TEST_S3_EXPIRED"))
    }

    /// A bucket name no other test uses: `prefix-` and random lowercase letters.
    public static func uniqueBucket(_ prefix: String = "test") -> String {
        "\(prefix)-\(UUID().uuidString.lowercased().prefix(13))"
    }

    /// Thrown by ``current()`` when the environment names no store.
    public struct Missing: Error, CustomStringConvertible {
        public var description: String {
            "no radosgw for the S3 tests: run them through scripts/test, or `eval \"$(scripts/radosgw start)\"` first "
                + "(ASSETPIPE_TEST_S3_ENDPOINT is not set; ASSETPIPE_TEST_S3=skip leaves these tests out)"
        }
    }
}
