import AssetImaging
import Testing

@Suite struct TransformTextTests {
    @Test func theCanonicalTextReadsBackTheSameTransform() throws {
        var transform = ImageTransform(width: 512, height: 256, fit: .cover, gravity: .attention, format: .format(.webp))
        transform.quality = 75
        transform.devicePixelRatio = 1.5
        transform.background = RGBColor(red: 0x12, green: 0xab, blue: 0xff)
        transform.keepMetadata = true
        let text = transform.canonicalText
        #expect(text == "w=512,h=256,fit=cover,gravity=attention,dpr=1.5,bg=12abff,format=webp,q=75,metadata=keep")
        #expect(try ImageTransform(parsing: text) == transform)
    }

    @Test func aliasesSeparatorsAndOrderDoNotChangeTheCanonicalText() throws {
        let a = try ImageTransform(parsing: "format:webp;width:256&quality=80")
        let b = try ImageTransform(pairs: [("w", "256"), ("q", "80"), ("f", "webp"), ("url", "http://x/")], ignoring: ["url"])
        #expect(a == b)
        #expect(a.canonicalText == "w=256,format=webp,q=80")
        #expect(ImageTransform().canonicalText == "original")
        #expect(try ImageTransform(parsing: "original") == ImageTransform())
    }

    @Test(arguments: [
        "w=0", "w=100000", "h=-3", "q=0", "q=101", "format=gif", "fit=stretch", "gravity=up", "dpr=0", "dpr=9",
        "bg=zzzzzz", "unknown=1", "w=12,w=13", "w=abc", "lossless=maybe", "w=8000,dpr=3", "nonsense",
    ])
    func badTransformsAreTypedErrors(_ text: String) {
        #expect(throws: ImagingError.invalidTransform) { try ImageTransform(parsing: text) }
    }

    @Test func backgroundColoursParseInBothLengths() {
        #expect(RGBColor(hex: "#fff") == RGBColor.white)
        #expect(RGBColor(hex: "0a0B0c")?.description == "0a0b0c")
        #expect(RGBColor(hex: "12345") == nil)
    }
}
