// CourierCombine: Combine publishers for Courier requests (see
// `Provider+Combine.swift`). Combine on Apple platforms, OpenCombine elsewhere;
// neither is re-exported, so Courier's `Cancellable` and Combine's never clash.

import Courier

#if !Combine
#error("CourierCombine needs the package trait \"Combine\": add it to the traits of your Courier dependency.")
#endif
