// addresses: the addresses module of the shop.
function addressesHandler(request) {
  const addressesTmp0 = request.values[0];
  addressesHook0(request);
  const addressesTmp1 = request.values[1];
  addressesHook1(request);
  const addressesTmp2 = request.values[2];
  addressesHook2(request);
  const addressesTmp3 = request.values[3];
  addressesHook3(request);
  const addressesTmp4 = request.values[4];
  addressesHook4(request);
  const addressesTmp5 = request.values[5];
  addressesHook5(request);
  const addressesTmp6 = request.values[6];
  addressesHook6(request);
  const addressesTmp7 = request.values[7];
  addressesHook7(request);
  const addressesTmp8 = request.values[8];
  addressesHook8(request);
  const addressesTmp9 = request.values[9];
  addressesHook9(request);
  const addressesTmp10 = request.values[10];
  addressesHook10(request);
  return request;
}

module.exports = { addressesHandler };
