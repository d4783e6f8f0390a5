#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension S3Client.Configuration {
    /// The configuration the AWS tools would use, from the standard variables and files.
    ///
    /// - Endpoint: `endpoint`, else `AWS_ENDPOINT_URL_S3`, else `AWS_ENDPOINT_URL`, else AWS's
    ///   `https://s3.REGION.amazonaws.com` (then virtual-hosted addressing; path-style for any
    ///   other endpoint unless `addressing` says otherwise).
    /// - Region: `region`, else `AWS_REGION`, else `AWS_DEFAULT_REGION`, else the profile's `region`
    ///   in `~/.aws/config` (`AWS_CONFIG_FILE`), else `us-east-1`.
    /// - Credentials: `AWS_ACCESS_KEY_ID` and `AWS_SECRET_ACCESS_KEY` (with `AWS_SESSION_TOKEN` and
    ///   its `AWS_CREDENTIAL_EXPIRATION`, ISO 8601, for temporary credentials), else the profile `AWS_PROFILE` (default `default`) of `~/.aws/credentials`
    ///   (`AWS_SHARED_CREDENTIALS_FILE`).
    ///
    /// Throws ``LoaderError/invalidURL`` for an endpoint that is not an http(s) URL, and
    /// ``LoaderError/unsupportedScheme`` when no credentials are found (saying where it looked; never
    /// a secret).
    public static func standard(
        endpoint: String? = nil, region: String? = nil, addressing: Addressing? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(LoaderError) -> S3Client.Configuration {
        func variable(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        let home = variable("HOME") ?? FileManager.default.homeDirectoryForCurrentUser.path
        let profile = variable("AWS_PROFILE") ?? "default"
        let config = S3ProfileFile.load(path: variable("AWS_CONFIG_FILE") ?? "\(home)/.aws/config")?.sections[profile]
        let chosenRegion = region ?? variable("AWS_REGION") ?? variable("AWS_DEFAULT_REGION") ?? config?["region"] ?? "us-east-1"

        let credentials: S3Credentials
        if let key = variable("AWS_ACCESS_KEY_ID"), let secret = variable("AWS_SECRET_ACCESS_KEY") {
            credentials = S3Credentials(
                accessKeyID: key, secretAccessKey: secret, sessionToken: variable("AWS_SESSION_TOKEN"),
                expiration: variable("AWS_CREDENTIAL_EXPIRATION").flatMap(S3Credentials.expiration(iso8601:)))
        } else {
            let path = variable("AWS_SHARED_CREDENTIALS_FILE") ?? "\(home)/.aws/credentials"
            guard let section = S3ProfileFile.load(path: path)?.sections[profile],
                let key = section["aws_access_key_id"], let secret = section["aws_secret_access_key"]
            else {
                throw LoaderError.unsupportedScheme.with(
                    message: "no S3 credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or the profile '\(profile)' in \(path)")
            }
            credentials = S3Credentials(accessKeyID: key, secretAccessKey: secret, sessionToken: section["aws_session_token"])
        }

        let named = endpoint ?? variable("AWS_ENDPOINT_URL_S3") ?? variable("AWS_ENDPOINT_URL")
        let chosenEndpoint = named ?? "https://s3.\(chosenRegion).amazonaws.com"
        guard let components = URLComponents(string: chosenEndpoint), let scheme = components.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = components.host, !host.isEmpty
        else {
            throw LoaderError.invalidURL.with(message: "the S3 endpoint must be an http(s)://host[:port] URL (got '\(chosenEndpoint)')")
        }
        return S3Client.Configuration(
            endpoint: chosenEndpoint, region: chosenRegion, credentials: credentials,
            addressing: addressing ?? (named == nil ? .virtualHosted : .path))
    }
}
