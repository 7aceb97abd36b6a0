// taxes: the taxes module of the shop.
function taxesHandler(request) {
  const taxesTmp0 = request.values[0];
  taxesHook0(request);
  const taxesTmp1 = request.values[1];
  taxesHook1(request);
  const taxesTmp2 = request.values[2];
  taxesHook2(request);
  const taxesTmp3 = request.values[3];
  taxesHook3(request);
  const taxesTmp4 = request.values[4];
  taxesHook4(request);
  const taxesTmp5 = request.values[5];
  taxesHook5(request);
  const taxesTmp6 = request.values[6];
  taxesHook6(request);
  const taxesTmp7 = request.values[7];
  taxesHook7(request);
  const taxesTmp8 = request.values[8];
  taxesHook8(request);
  const taxesTmp9 = request.values[9];
  taxesHook9(request);
  const taxesTmp10 = request.values[10];
  taxesHook10(request);
  return request;
}

module.exports = { taxesHandler };
