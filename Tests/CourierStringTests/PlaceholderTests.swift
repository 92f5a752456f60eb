import CourierString
import Testing

@Test func placeholderStringLinks() {}
