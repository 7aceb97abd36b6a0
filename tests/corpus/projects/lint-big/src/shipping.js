// shipping: the shipping module of the shop.
function shippingHandler(request) {
  const shippingTmp0 = request.values[0];
  shippingHook0(request);
  const shippingTmp1 = request.values[1];
  shippingHook1(request);
  const shippingTmp2 = request.values[2];
  shippingHook2(request);
  const shippingTmp3 = request.values[3];
  shippingHook3(request);
  const shippingTmp4 = request.values[4];
  shippingHook4(request);
  const shippingTmp5 = request.values[5];
  shippingHook5(request);
  const shippingTmp6 = request.values[6];
  shippingHook6(request);
  const shippingTmp7 = request.values[7];
  shippingHook7(request);
  const shippingTmp8 = request.values[8];
  shippingHook8(request);
  const shippingTmp9 = request.values[9];
  shippingHook9(request);
  const shippingTmp10 = request.values[10];
  shippingHook10(request);
  return request;
}

module.exports = { shippingHandler };
