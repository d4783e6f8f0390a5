import ArgumentParser
import AssetLoading
import Foundation

/// `--s3-endpoint`, `--s3-region`, `--s3-addressing`: where `s3://bucket/key` URLs are read from.
/// Credentials come from the standard `AWS_*` variables or `~/.aws/credentials`, never from a flag.
struct S3Options: ParsableArguments {
    @Option(name: .customLong("s3-endpoint"), help: ArgumentHelp(
        "The S3 endpoint s3:// URLs are read from (http(s)://host[:port]); default $AWS_ENDPOINT_URL_S3, $AWS_ENDPOINT_URL, else AWS.",
        valueName: "url"))
    var endpoint: String?

    @Option(name: .customLong("s3-region"), help: ArgumentHelp(
        "The signing region; default $AWS_REGION, $AWS_DEFAULT_REGION, the profile's region, else us-east-1.", valueName: "region"))
    var region: String?

    @Option(name: .customLong("s3-addressing"), help: ArgumentHelp(
        "'path' (http://endpoint/bucket/key, the default with an endpoint) or 'virtual' (bucket.endpoint, the default on AWS).",
        valueName: "style"))
    var addressing: String?

    func validate() throws {
        _ = try configuration()
    }

    /// The store's configuration, or nil when nothing names one: no flag, no endpoint variable and no
    /// credentials (an `s3://` load then fails saying so). A flag or endpoint without credentials is an error.
    func configuration(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> S3Client.Configuration? {
        var style: S3Client.Configuration.Addressing?
        if let addressing {
            guard let parsed = S3Client.Configuration.Addressing(rawValue: addressing) else {
                throw ValidationError("--s3-addressing must be 'path' or 'virtual' (got '\(addressing)')")
            }
            style = parsed
        }
        let named = endpoint != nil || region != nil || addressing != nil
            || ["AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL"].contains { environment[$0]?.isEmpty == false }
        do {
            return try S3Client.Configuration.standard(endpoint: endpoint, region: region, addressing: style, environment: environment)
        } catch let error where error == .unsupportedScheme && !named {
            return nil
        } catch {
            throw ValidationError(error.message)
        }
    }
}
