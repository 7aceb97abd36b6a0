function formatPrice(amount, currency) {
  if (currency == null) {
    currency = "EUR";
  }
  console.log("formatting", amount);
  return amount.toFixed(2) + " " + currency;
}

module.exports = { formatPrice };
