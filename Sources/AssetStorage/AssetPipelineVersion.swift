/// The package's version: what `assetpipe --version` prints, the loader's `User-Agent` and the
/// service's `Server` header. CHANGELOG.md lists the changes of each.
public enum AssetPipelineVersion {
    /// The version, `MAJOR.MINOR.PATCH`.
    public static let current = "0.3.0"

    /// `assetpipe/VERSION`, the product token of `User-Agent` and `Server`.
    public static let productToken = "assetpipe/\(current)"
}
