import ArgumentParser
import AssetLoading
import AssetPipeline

extension CacheCommand.Prune {
    /// `--derived-store` with `--max-age`: the bucket's objects written longer ago removed; nil
    /// without the flag. A store that cannot be listed or pruned fails the command (exit 1).
    func pruneDerivedStore() async throws -> DerivedStore.PruneResult? {
        guard let configuration = try derived.configuration(s3: try s3.configuration()), let maxAge else { return nil }
        do {
            return try await DerivedStore.prune(configuration, maxAge: .milliseconds(Int64(maxAge * 1000)))
        } catch {
            CLIOutput.error("derived store \(configuration.location): \(error.shortDescription): \(error.message)")
            throw ExitCode.failure
        }
    }
}
