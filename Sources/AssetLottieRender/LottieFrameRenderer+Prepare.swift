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
    /// before a gap under round or square caps lengthened a little (rlottie drops it), each static time remap
    /// written as keyframes (rlottie ignores it), the composition lengthened past the latest
    /// time a time remap names (rlottie clamps it to the composition's end), and each colour span
    /// whose easing overshoots 0...1 written frame by frame, clamped (rlottie wraps a channel past 1).
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
        var json = model.json
        let readFrameCount = compositionFrameCount(json, frameRate: model.frameRate, frameCount: frameCount)
        if readFrameCount > frameCount, case .object(var root) = json, let inPoint = model.inPoint {
            // Only the top composition's end moves: frame n stays the frame n after `ip`.
            let outPoint = JSONValue.int(Int(inPoint.rounded(.towardZero)) + readFrameCount)
            for position in root.members.indices where root.members[position].key == "op" { root.members[position].value = outPoint }
            json = .object(root)
        }
        let rewritten = try RLottieJSON.rewrite(json, maxPathCoordinate: configuration.maxPathCoordinate)
        let bytes = JSONWriter(integralNumbersAsIntegers: true).write(rewritten)
        return LottieRenderInput(json: Data(bytes), width: width, height: height, frameCount: frameCount,
                                 rlottieFrameCount: readFrameCount, omittedImageCount: omitted)
    }

    /// The frames of the composition rlottie is given: `frameCount`, or more when a time remap
    /// names a later time (``RLottieJSON/timeRemapReach(in:frameRate:)``), so that rlottie,
    /// which clamps a remapped time to the composition's last frame, reaches it (one frame more
    /// for its rounding); at most ``Configuration-swift.struct/maxFrameCount``.
    private func compositionFrameCount(_ json: JSONValue, frameRate: Double?, frameCount: Int) -> Int {
        guard let frameRate, frameRate > 0, frameRate.isFinite,
              let reach = RLottieJSON.timeRemapReach(in: json, frameRate: frameRate) else { return frameCount }
        let limit = max(frameCount, configuration.maxFrameCount)
        guard reach < Double(limit - 2) else { return limit }
        return max(frameCount, Int(reach.rounded(.up)) + 2)
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
