// `import Courier` is enough to use URL, Data and URLRequest, on Linux too
// (where URLRequest lives in FoundationNetworking).
@_exported import Foundation
#if canImport(FoundationNetworking)
@_exported import FoundationNetworking
#endif
