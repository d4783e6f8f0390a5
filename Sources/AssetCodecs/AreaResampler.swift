/// Area-averaging resize of straight-alpha RGBA8: each output pixel is the average of the source
/// area it covers (fractional pixels weighted by coverage), colours weighted by alpha so that
/// transparent pixels do not bleed their colour. Sums are exact (integers held in Doubles).
enum AreaResampler {
    /// For each output index, the source indices it covers and their integer weights (overlap
    /// lengths in units of 1/(source * destination)); the weights of one output sum to `source`.
    struct Contributions {
        var first: [Int] = []
        var weightsStart: [Int] = []
        var weights: [Double] = []

        init(source: Int, destination: Int) {
            for index in 0..<destination {
                let low = index * source
                let high = (index + 1) * source
                let firstSource = low / destination
                let lastSource = (high - 1) / destination
                first.append(firstSource)
                weightsStart.append(weights.count)
                for sourceIndex in firstSource...lastSource {
                    let overlap = min(high, (sourceIndex + 1) * destination) - max(low, sourceIndex * destination)
                    weights.append(Double(overlap))
                }
            }
            weightsStart.append(weights.count)
        }
    }

    static func resize(
        source: UnsafeRawBufferPointer, width sourceWidth: Int, height sourceHeight: Int, bytesPerRow sourceRow: Int,
        into destination: UnsafeMutableRawBufferPointer, width: Int, height: Int, bytesPerRow: Int
    ) {
        let columns = Contributions(source: sourceWidth, destination: width)
        let rows = Contributions(source: sourceHeight, destination: height)
        let area = Double(sourceWidth) * Double(sourceHeight)
        // Per output row: the horizontally reduced source row and the vertical accumulator, both
        // premultiplied (r*a, g*a, b*a, a).
        var reduced = [Double](repeating: 0, count: width * 4)
        var accumulator = [Double](repeating: 0, count: width * 4)
        var reducedRow = -1
        for y in 0..<height {
            for i in accumulator.indices { accumulator[i] = 0 }
            let start = rows.weightsStart[y]
            for k in start..<rows.weightsStart[y + 1] {
                let sourceY = rows.first[y] + (k - start)
                if reducedRow != sourceY {
                    reduceRow(source, offset: sourceY * sourceRow, columns: columns, width: width, into: &reduced)
                    reducedRow = sourceY
                }
                let weight = rows.weights[k]
                for i in 0..<(width * 4) { accumulator[i] += reduced[i] * weight }
            }
            let rowBase = y * bytesPerRow
            for x in 0..<width {
                let alphaSum = accumulator[x * 4 + 3]
                let alpha = (alphaSum / area).rounded()
                destination[rowBase + x * 4 + 3] = UInt8(min(255, alpha))
                for c in 0..<3 {
                    let value = alphaSum > 0 ? (accumulator[x * 4 + c] / alphaSum).rounded() : 0
                    destination[rowBase + x * 4 + c] = UInt8(min(255, max(0, value)))
                }
            }
        }
    }

    private static func reduceRow(
        _ source: UnsafeRawBufferPointer, offset: Int, columns: Contributions, width: Int, into reduced: inout [Double]
    ) {
        for x in 0..<width {
            var r = 0.0, g = 0.0, b = 0.0, a = 0.0
            let start = columns.weightsStart[x]
            var pixel = offset + columns.first[x] * 4
            for k in start..<columns.weightsStart[x + 1] {
                let weight = columns.weights[k]
                let alpha = Double(source[pixel + 3]) * weight
                r += Double(source[pixel]) * alpha
                g += Double(source[pixel + 1]) * alpha
                b += Double(source[pixel + 2]) * alpha
                a += alpha
                pixel += 4
            }
            reduced[x * 4] = r
            reduced[x * 4 + 1] = g
            reduced[x * 4 + 2] = b
            reduced[x * 4 + 3] = a
        }
    }
}
