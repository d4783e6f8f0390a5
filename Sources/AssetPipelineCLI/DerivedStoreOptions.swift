import ArgumentParser
import AssetLoading
import AssetPipeline

/// `--derived-store s3://bucket/prefix`: a bucket of variants shared with other processes and nodes.
struct DerivedStoreOptions: ParsableArguments {
    @Option(name: .customLong("derived-store"), help: ArgumentHelp(
        "Share made image variants through this S3 prefix (s3://bucket/prefix, on the --s3-endpoint store): read before transforming, written after.",
        valueName: "s3-url"))
    var derivedStore: String?

    /// The store's configuration on `s3`, or nil without the flag.
    func configuration(s3: S3Client.Configuration?) throws -> DerivedStore.Configuration? {
        guard let derivedStore else { return nil }
        guard let s3 else {
            throw ValidationError("--derived-store needs an S3 store: --s3-endpoint or AWS_ENDPOINT_URL, and AWS credentials")
        }
        do {
            return DerivedStore.Configuration(s3: s3, location: try S3Location(url: derivedStore))
        } catch {
            throw ValidationError("--derived-store: \(error.message)")
        }
    }
}
