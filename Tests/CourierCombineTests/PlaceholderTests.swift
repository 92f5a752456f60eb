import CourierCombine
import Testing

@Test func placeholderCombineLinks() {}
