import AssetLottie

extension RLottieJSON {
    /// Refuses a path (an object whose `v` is a list of points, as in a shape's or a mask's
    /// bezier and in their keyframes) with a coordinate of a vertex (`v`) or of a tangent (`i`,
    /// `o`) past `limit` in magnitude. Other objects pass.
    ///
    /// rlottie's rasterizer walks every cell an edge crosses, inside the frame or not: with one
    /// mask vertex of a layer scaled 2135% moved to x = 1e6, 1e7, 1e8 and 2.49e9, frame 0
    /// took 0.08, 0.4, 4 and 136 s. Clamping would render such a file quickly but as another
    /// drawing (the edges to a moved vertex change direction inside the frame too) without
    /// saying so; a refusal says so. Either way every file within the bound is written exactly
    /// as before.
    /// - Throws: `LottieRenderError.unsupported`, naming the path's JSON path.
    static func checkPathCoordinates(_ object: JSONObject, limit: Double, path: () -> String) throws(LottieRenderError) {
        guard case .array(let vertices)? = object["v"], vertices.allSatisfy({ $0.arrayValue != nil }) else { return }
        for key in ["v", "i", "o"] {
            guard case .array(let points)? = object[key] else { continue }
            for point in points {
                guard case .array(let numbers) = point else { continue }
                for number in numbers {
                    guard let coordinate = number.doubleValue, abs(coordinate) > limit else { continue }
                    throw .unsupported("\(path()).\(key): a coordinate of \(coordinate) is past the limit of \(limit)"
                                       + " (rlottie's time to draw an edge grows with its length)")
                }
            }
        }
    }
}
