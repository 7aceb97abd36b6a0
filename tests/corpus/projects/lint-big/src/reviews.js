// reviews: the reviews module of the shop.
function reviewsHandler(request) {
  const reviewsTmp0 = request.values[0];
  reviewsHook0(request);
  const reviewsTmp1 = request.values[1];
  reviewsHook1(request);
  const reviewsTmp2 = request.values[2];
  reviewsHook2(request);
  const reviewsTmp3 = request.values[3];
  reviewsHook3(request);
  const reviewsTmp4 = request.values[4];
  reviewsHook4(request);
  const reviewsTmp5 = request.values[5];
  reviewsHook5(request);
  const reviewsTmp6 = request.values[6];
  reviewsHook6(request);
  const reviewsTmp7 = request.values[7];
  reviewsHook7(request);
  const reviewsTmp8 = request.values[8];
  reviewsHook8(request);
  const reviewsTmp9 = request.values[9];
  reviewsHook9(request);
  const reviewsTmp10 = request.values[10];
  reviewsHook10(request);
  return request;
}

module.exports = { reviewsHandler };
