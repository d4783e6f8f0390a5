import AssetLottie

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension LottieFrameRenderer {
    /// Checks `animation` against this renderer's limits and writes the JSON rlottie will read
    /// (see ``LottieRenderInput``), spelled so that rlottie reads it as Lottie means it: one
    /// member per key, each layer's `ddd` before its `ks`, each dash array's offset last, each
    /// shape item's `ty` first, each star's and polygon's rotation halved (rlottie doubles it),
    /// each mask of mode `n` dropped (rlottie hides the layer behind it), each dash of length 0
    /// before a gap under round or square caps lengthened a little (rlottie drops it).
    /// rlottie is not called.
    /// - Throws: `LottieRenderError`: `invalidSize` (missing, not positive) or `sizeTooLarge` for
    ///   the animation's `w`/`h`,
    ///   `unsupported` for an animation without frames or with a hazard (a cycle, nesting past
    ///   the limit, a path coordinate past the limit), `sizeTooLarge` for embedded images past
    ///   the limit.
    public func prepare(_ animation: LottieAnimation) throws(LottieRenderError) -> LottieRenderInput {
        let width = try naturalSide(animation.width, "w")
        let height = try naturalSide(animation.height, "h")
        let frameCount = try frameCount(of: animation)
        if let hazard = RenderHazards.find(in: animation, maxNesting: configuration.maxNesting) {
            throw .unsupported("\(hazard.path): \(hazard.message)")
        }
        var model = animation
        (model.width, model.height) = (Double(width), Double(height))
        // rlottie refuses a file without a string `v`, which Lottie 1.0 made optional.
        model.version = model.version ?? Self.assumedVersion
        model.versionIsNumber = false
        var omitted = 0
        if var assets = model.assets {
            omitted = try EmbeddedImages.prepare(&assets, maxPixels: configuration.maxImagePixels)
            model.assets = assets
        }
        let rewritten = try RLottieJSON.rewrite(model.json, maxPathCoordinate: configuration.maxPathCoordinate)
        let json = JSONWriter(integralNumbersAsIntegers: true).write(rewritten)
        return LottieRenderInput(json: Data(json), width: width, height: height, frameCount: frameCount,
                                 omittedImageCount: omitted)
    }

    /// The `v` written for an animation that has none: the Bodymovin release Lottie 1.0 follows.
    static let assumedVersion = "5.7.0"

    /// `w` or `h` as a positive integer within the limit: a fraction is rounded (at least 1), as
    /// rlottie reads only integers there.
    private func naturalSide(_ value: Double?, _ key: String) throws(LottieRenderError) -> Int {
        guard let value, value.isFinite, value > 0 else {
            throw .invalidSize("the animation's \(key) must be a positive number (is \(value.map { "\($0)" } ?? "missing"))")
        }
        guard value <= Double(configuration.maxDimension) else {
            throw .sizeTooLarge("the animation's \(key) of \(value) is past the limit of \(configuration.maxDimension)")
        }
        return max(1, Int(value.rounded()))
    }

    /// `op - ip`, each truncated toward zero as rlottie stores them.
    private func frameCount(of animation: LottieAnimation) throws(LottieRenderError) -> Int {
        let limit = Double(configuration.maxFrameCount)
        guard let inPoint = animation.inPoint, let outPoint = animation.outPoint,
              abs(inPoint) <= limit, abs(outPoint) <= limit else {
            throw .unsupported("the animation needs ip and op within \(configuration.maxFrameCount) frames")
        }
        let count = Int(outPoint.rounded(.towardZero)) - Int(inPoint.rounded(.towardZero))
        guard count >= 1 else { throw .unsupported("the animation has no frames (ip \(inPoint), op \(outPoint))") }
        guard count <= configuration.maxFrameCount else {
            throw .unsupported("\(count) frames is past the limit of \(configuration.maxFrameCount)")
        }
        return count
    }
}
