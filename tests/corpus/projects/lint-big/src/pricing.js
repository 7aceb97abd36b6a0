// pricing: the pricing module of the shop.
function pricingHandler(request) {
  const pricingTmp0 = request.values[0];
  pricingHook0(request);
  const pricingTmp1 = request.values[1];
  pricingHook1(request);
  const pricingTmp2 = request.values[2];
  pricingHook2(request);
  const pricingTmp3 = request.values[3];
  pricingHook3(request);
  const pricingTmp4 = request.values[4];
  pricingHook4(request);
  const pricingTmp5 = request.values[5];
  pricingHook5(request);
  const pricingTmp6 = request.values[6];
  pricingHook6(request);
  const pricingTmp7 = request.values[7];
  pricingHook7(request);
  const pricingTmp8 = request.values[8];
  pricingHook8(request);
  const pricingTmp9 = request.values[9];
  pricingHook9(request);
  const pricingTmp10 = request.values[10];
  pricingHook10(request);
  return request;
}

module.exports = { pricingHandler };
