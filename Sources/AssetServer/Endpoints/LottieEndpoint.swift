import AssetLottie
import AssetPipeline
import Foundation

/// `GET|HEAD /v1/lottie?url=U[&strict=1]`: the facts `assetpipe lottie --json` prints, through
/// ``LottieUtil`` (memoized; one parse for concurrent requests). A file that does not parse, or
/// fails strict validation, is a 422 with the problems and their JSON paths.
struct LottieEndpoint: Sendable {
    let context: ServerContext

    func answer(_ incoming: IncomingRequest) async throws -> Reply {
        let asset = try AssetTarget(incoming)
        guard let url = URL(string: asset.url) else { throw AssetServerError.invalidParameter("url", "is not a valid URL") }
        let options = LottieUtil.Options(strict: incoming.flag("strict"))
        let start = ContinuousClock.now
        let parsesBefore = context.lottie.parseCount
        let document = try await context.lottie.document(for: url, options: options)
        if context.lottie.parseCount != parsesBefore {
            context.metrics.recordDecode(kind: "lottie", seconds: (ContinuousClock.now - start).seconds)
        }
        var reply = Reply.json(LottieFacts.json(document))
        reply.fields[.cacheControl] = nil
        return reply
    }
}
