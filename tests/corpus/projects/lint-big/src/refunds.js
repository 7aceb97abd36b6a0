// refunds: the refunds module of the shop.
function refundsHandler(request) {
  const refundsTmp0 = request.values[0];
  refundsHook0(request);
  const refundsTmp1 = request.values[1];
  refundsHook1(request);
  const refundsTmp2 = request.values[2];
  refundsHook2(request);
  const refundsTmp3 = request.values[3];
  refundsHook3(request);
  const refundsTmp4 = request.values[4];
  refundsHook4(request);
  const refundsTmp5 = request.values[5];
  refundsHook5(request);
  const refundsTmp6 = request.values[6];
  refundsHook6(request);
  const refundsTmp7 = request.values[7];
  refundsHook7(request);
  const refundsTmp8 = request.values[8];
  refundsHook8(request);
  const refundsTmp9 = request.values[9];
  refundsHook9(request);
  const refundsTmp10 = request.values[10];
  refundsHook10(request);
  return request;
}

module.exports = { refundsHandler };
