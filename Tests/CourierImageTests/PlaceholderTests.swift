import CourierImage
import Testing

@Test func placeholderImageLinks() {}
