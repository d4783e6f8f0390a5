import AssetLottie
import AssetStorage

/// The facts of a Lottie document as `assetpipe lottie --json` and `GET /v1/lottie` print them: one
/// object per animation (version, frame rate, in and out points, size, duration, layer and asset
/// counts, name), or `{"animations": [...]}` with an `id` each for a dotLottie. Keys are sorted.
public enum LottieFacts {
    /// The JSON of `document`.
    public static func json(_ document: LottieDocument) -> CompactJSON {
        if document.isDotLottie {
            return .object([("animations", .array(document.animations.map { json($0.animation, id: $0.id) }))])
        }
        return json(document.animations[0].animation, id: nil)
    }

    /// The JSON of one animation (`id` for an animation of a dotLottie).
    public static func json(_ animation: LottieAnimation, id: String?) -> CompactJSON {
        func number(_ value: Double?) -> CompactJSON { value.map(CompactJSON.number) ?? .null }
        func string(_ value: String?) -> CompactJSON { value.map(CompactJSON.string) ?? .null }
        var members: [(String, CompactJSON)] = [
            ("assetCount", .number(Double(animation.assetCount))),
            ("durationSeconds", number(animation.durationSeconds)),
            ("frameRate", number(animation.frameRate)),
            ("height", number(animation.height)),
        ]
        if let id { members.append(("id", .string(id))) }
        members += [
            ("inPoint", number(animation.inPoint)),
            ("layerCount", .number(Double(animation.layerCount))),
            ("name", string(animation.name)),
            ("outPoint", number(animation.outPoint)),
            ("version", string(animation.version)),
            ("width", number(animation.width)),
        ]
        return .object(members)
    }
}
