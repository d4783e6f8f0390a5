/// The sizes a transform resolves to for one upright source size: the size the image is resized
/// to, then the box it is cropped or padded to (the output).
public struct TransformGeometry: Sendable, Hashable {
    /// The width after resizing (upright).
    public var resizedWidth: Int
    /// The height after resizing (upright).
    public var resizedHeight: Int
    /// The output width: the resized width, cropped (`cover`) or padded (`contain`) to the box.
    public var outputWidth: Int
    /// The output height: the resized height, cropped (`cover`) or padded (`contain`) to the box.
    public var outputHeight: Int

    /// Whether the output is a crop of the resized image.
    public var crops: Bool { outputWidth < resizedWidth || outputHeight < resizedHeight }
    /// Whether the output pads the resized image.
    public var pads: Bool { outputWidth > resizedWidth || outputHeight > resizedHeight }
}

extension ImageTransform {
    /// The target box in device pixels: each given side times the device pixel ratio, rounded.
    var box: (width: Int?, height: Int?) {
        func scaled(_ side: Int?) -> Int? {
            side.map { max(1, Int((Double($0) * devicePixelRatio).rounded())) }
        }
        return (scaled(width), scaled(height))
    }

    /// Resolves the sizes for an upright source of `width` x `height`.
    public func geometry(sourceWidth width: Int, sourceHeight height: Int) -> TransformGeometry {
        let (sw, sh) = (Double(width), Double(height))
        func same(_ w: Int, _ h: Int) -> TransformGeometry {
            TransformGeometry(resizedWidth: w, resizedHeight: h, outputWidth: w, outputHeight: h)
        }
        /// The size at `scale`, with the side that set the scale exact.
        func scaled(_ scale: Double, exactWidth: Int?, exactHeight: Int?) -> (Int, Int) {
            let w = exactWidth ?? max(1, Int((sw * scale).rounded()))
            let h = exactHeight ?? max(1, Int((sh * scale).rounded()))
            return (w, h)
        }
        switch box {
        case (nil, nil):
            return same(width, height)
        case (let tw?, nil):
            let scale = Double(tw) / sw
            if scale > 1, !enlarge { return same(width, height) }
            let (w, h) = scaled(scale, exactWidth: tw, exactHeight: nil)
            return same(w, h)
        case (nil, let th?):
            let scale = Double(th) / sh
            if scale > 1, !enlarge { return same(width, height) }
            let (w, h) = scaled(scale, exactWidth: nil, exactHeight: th)
            return same(w, h)
        case (let tw?, let th?):
            let sx = Double(tw) / sw, sy = Double(th) / sh
            switch fit {
            case .fill:
                let w = enlarge ? tw : min(tw, width), h = enlarge ? th : min(th, height)
                return same(w, h)
            case .inside, .contain:
                var scale = min(sx, sy)
                let limited = !enlarge && scale > 1
                if limited { scale = 1 }
                let (w, h) = limited ? (width, height)
                    : scaled(scale, exactWidth: sx <= sy ? tw : nil, exactHeight: sy < sx ? th : nil)
                if fit == .inside { return same(w, h) }
                return TransformGeometry(resizedWidth: min(w, tw), resizedHeight: min(h, th), outputWidth: tw, outputHeight: th)
            case .cover, .outside:
                var scale = max(sx, sy)
                let limited = !enlarge && scale > 1
                if limited { scale = 1 }
                let (w, h) = limited ? (width, height)
                    : scaled(scale, exactWidth: sx >= sy ? tw : nil, exactHeight: sy > sx ? th : nil)
                if fit == .outside { return same(w, h) }
                return TransformGeometry(resizedWidth: w, resizedHeight: h, outputWidth: min(w, tw), outputHeight: min(h, th))
            }
        }
    }
}
