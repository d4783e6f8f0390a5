#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension VideoStoryboard {
    /// The WebVTT thumbnails track: one cue a tile, over its slot, whose text is
    /// `SPRITE_URL#xywh=x,y,w,h` (the media fragment players crop the sprite by).
    ///
    /// ```
    /// WEBVTT
    ///
    /// 00:00:00.000 --> 00:00:10.000
    /// storyboard.jpg#xywh=0,0,160,90
    /// ```
    public func webVTT(spriteURL: String) -> String {
        var text = "WEBVTT\n"
        for index in 0..<count {
            let (start, end) = slot(ofTile: index)
            let (x, y, w, h) = frame(ofTile: index)
            text += "\n\(Self.timestamp(start)) --> \(Self.timestamp(end))\n\(spriteURL)#xywh=\(x),\(y),\(w),\(h)\n"
        }
        return text
    }

    /// The same as JSON, in the shape of Mux's `storyboard.json` with each tile's slot end and
    /// frame time added: `{"url":…,"tile_width":160,"tile_height":90,"duration":…,"tiles":[{"start":0,"end":10,"time":0,"x":0,"y":0},…]}`.
    public func json(spriteURL: String) -> String {
        var tiles: [String] = []
        tiles.reserveCapacity(count)
        for index in 0..<count {
            let (start, end) = slot(ofTile: index)
            let (x, y, _, _) = frame(ofTile: index)
            tiles.append("{\"start\":\(Self.number(start)),\"end\":\(Self.number(end)),\"time\":\(Self.number(times[index])),\"x\":\(x),\"y\":\(y)}")
        }
        return "{\"url\":\(Self.quoted(spriteURL)),\"format\":\"\(format.rawValue)\",\"width\":\(width),\"height\":\(height),"
            + "\"tile_width\":\(tileWidth),\"tile_height\":\(tileHeight),\"columns\":\(columns),"
            + "\"interval\":\(Self.number(interval)),\"duration\":\(Self.number(duration)),\"tiles\":[\(tiles.joined(separator: ","))]}"
    }

    /// `HH:MM:SS.mmm`, as WebVTT writes a time.
    static func timestamp(_ seconds: Double) -> String {
        let milliseconds = Int((max(0, seconds) * 1000).rounded())
        let (hours, rest) = milliseconds.quotientAndRemainder(dividingBy: 3_600_000)
        let (minutes, rest2) = rest.quotientAndRemainder(dividingBy: 60_000)
        let (secs, millis) = rest2.quotientAndRemainder(dividingBy: 1000)
        func pad(_ value: Int, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(hours, 2)):\(pad(minutes, 2)):\(pad(secs, 2)).\(pad(millis, 3))"
    }

    /// A number in JSON: at most three decimals, no trailing zeros.
    static func number(_ value: Double) -> String {
        let milli = (value * 1000).rounded()
        guard milli.isFinite else { return "0" }
        let whole = Int(milli)
        let (integer, fraction) = abs(whole).quotientAndRemainder(dividingBy: 1000)
        let sign = whole < 0 ? "-" : ""
        if fraction == 0 { return sign + String(integer) }
        var decimals = String(fraction)
        decimals = String(repeating: "0", count: 3 - decimals.count) + decimals
        while decimals.hasSuffix("0") { decimals.removeLast() }
        return sign + String(integer) + "." + decimals
    }

    /// A JSON string.
    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}
