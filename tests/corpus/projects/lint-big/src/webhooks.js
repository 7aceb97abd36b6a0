// webhooks: the webhooks module of the shop.
function webhooksHandler(request) {
  const webhooksTmp0 = request.values[0];
  webhooksHook0(request);
  const webhooksTmp1 = request.values[1];
  webhooksHook1(request);
  const webhooksTmp2 = request.values[2];
  webhooksHook2(request);
  const webhooksTmp3 = request.values[3];
  webhooksHook3(request);
  const webhooksTmp4 = request.values[4];
  webhooksHook4(request);
  const webhooksTmp5 = request.values[5];
  webhooksHook5(request);
  const webhooksTmp6 = request.values[6];
  webhooksHook6(request);
  const webhooksTmp7 = request.values[7];
  webhooksHook7(request);
  const webhooksTmp8 = request.values[8];
  webhooksHook8(request);
  const webhooksTmp9 = request.values[9];
  webhooksHook9(request);
  const webhooksTmp10 = request.values[10];
  webhooksHook10(request);
  return request;
}

module.exports = { webhooksHandler };
