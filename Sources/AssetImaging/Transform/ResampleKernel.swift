import CAssetImaging

/// The filter of a resize. Reductions stretch the kernel by the scale factor (a proper low-pass).
public enum ResampleKernel: String, Sendable, Hashable, CaseIterable {
    /// Nearest neighbour: no filtering.
    case nearest
    /// Triangle (bilinear), support 1.
    case linear
    /// Catmull-Rom cubic, support 2.
    case cubic
    /// Mitchell-Netravali cubic (B = C = 1/3), support 2.
    case mitchell
    /// Lanczos with 2 lobes.
    case lanczos2
    /// Lanczos with 3 lobes: the default, as libvips's.
    case lanczos3

    var cValue: Int32 {
        switch self {
        case .nearest: Int32(API_KERNEL_NEAREST.rawValue)
        case .linear: Int32(API_KERNEL_LINEAR.rawValue)
        case .cubic: Int32(API_KERNEL_CUBIC.rawValue)
        case .mitchell: Int32(API_KERNEL_MITCHELL.rawValue)
        case .lanczos2: Int32(API_KERNEL_LANCZOS2.rawValue)
        case .lanczos3: Int32(API_KERNEL_LANCZOS3.rawValue)
        }
    }
}
