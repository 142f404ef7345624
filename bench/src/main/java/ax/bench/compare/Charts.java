package ax.bench.compare;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Path;
import java.text.DecimalFormat;
import java.text.FieldPosition;
import java.text.NumberFormat;
import java.text.ParsePosition;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.CategoryAxis;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.NumberTickUnit;
import org.jfree.chart.axis.ValueAxis;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.ValueMarker;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.category.BarRenderer;
import org.jfree.chart.renderer.category.StandardBarPainter;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.chart.ui.RectangleAnchor;
import org.jfree.chart.ui.TextAnchor;
import org.jfree.data.category.DefaultCategoryDataset;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/** The PNG charts of the comparison (JFreeChart, headless). One colour per system in every chart. */
public final class Charts {
  private static final Map<String, Color> COLOURS = Map.of(
      "ax", new Color(0x1f77b4), AxExecutorsContender.NAME, new Color(0x9467bd), "db-scheduler", new Color(0xff7f0e), "quartz", new Color(0x2ca02c),
      "PostgreSQL (pgbench)", new Color(0x7f7f7f));
  private static final int WIDTH = 900;
  private static final int HEIGHT = 540;

  private Charts() {}

  /**
   * Lateness by percentile: x = −log10(1 − p), so 90 %, 99 %, 99.9 % are evenly spaced and the tail is
   * visible; y = lateness in ms on a log axis (values below 1 ms are drawn at 1 ms).
   */
  public static void latencyCdf(Path png, String title, Map<String, Histogram> bySystem) throws IOException {
    XYSeriesCollection data = new XYSeriesCollection();
    for (Map.Entry<String, Histogram> e : bySystem.entrySet()) {
      XYSeries s = new XYSeries(e.getKey(), false, true);
      Histogram h = e.getValue();
      if (h.getTotalCount() == 0) {
        continue;
      }
      for (HistogramIterationValue v : h.percentiles(5)) {
        double p = v.getPercentileLevelIteratedTo() / 100.0;
        if (p >= 1.0) {
          break;
        }
        s.add(-Math.log10(1 - p), Math.max(1, v.getValueIteratedTo()));
      }
      s.add(-Math.log10(1.0 / Math.max(10, h.getTotalCount())), Math.max(1, h.getMaxValue())); // max at 1/N
      data.addSeries(s);
    }
    NumberAxis x = new NumberAxis("percentile");
    x.setTickUnit(new NumberTickUnit(1, new PercentileFormat()));
    x.setRange(0, 5);
    LogAxis y = new LogAxis("lateness (ms, log)");
    y.setSmallestValue(1);
    y.setNumberFormatOverride(new DecimalFormat("#,##0"));
    XYLineAndShapeRenderer r = new XYLineAndShapeRenderer(true, false);
    XYPlot plot = new XYPlot(data, x, y, r);
    for (int i = 0; i < data.getSeriesCount(); i++) {
      r.setSeriesPaint(i, COLOURS.getOrDefault(String.valueOf(data.getSeriesKey(i)), Color.BLACK));
      r.setSeriesStroke(i, new BasicStroke(2.5f));
    }
    style(plot);
    ChartUtils.saveChartAsPNG(png.toFile(), new JFreeChart(title, JFreeChart.DEFAULT_TITLE_FONT, plot, true),
        WIDTH, HEIGHT);
  }

  /** Grouped bars on a log axis: {@code values} is category → (series → value). */
  public static void bars(Path png, String title, String valueAxis, Map<String, Map<String, Double>> values)
      throws IOException {
    LogAxis y = new LogAxis(valueAxis);
    y.setSmallestValue(1);
    y.setNumberFormatOverride(new DecimalFormat("#,##0"));
    bars(png, title, y, values, Double.NaN);
  }

  /**
   * Grouped bars on a linear axis from 0, so bar lengths compare as ratios, with a dashed line at {@code target}
   * (none if NaN): {@code values} is category → (series → value).
   */
  public static void costBars(Path png, String title, String valueAxis, Map<String, Map<String, Double>> values,
                              double target) throws IOException {
    NumberAxis y = new NumberAxis(valueAxis);
    y.setNumberFormatOverride(new DecimalFormat("#,##0"));
    double top = values.values().stream().flatMap(m -> m.values().stream())
        .filter(v -> v != null && !v.isNaN()).mapToDouble(Double::doubleValue).max().orElse(1);
    y.setRange(0, 1.15 * (Double.isNaN(target) ? top : Math.max(top, target))); // the target line and labels fit
    bars(png, title, y, values, target);
  }

  private static void bars(Path png, String title, ValueAxis y, Map<String, Map<String, Double>> values,
                           double target) throws IOException {
    DefaultCategoryDataset data = new DefaultCategoryDataset();
    for (Map.Entry<String, Map<String, Double>> cat : values.entrySet()) {
      for (Map.Entry<String, Double> s : cat.getValue().entrySet()) {
        if (s.getValue() != null && s.getValue() > 0) {
          data.addValue(s.getValue(), s.getKey(), cat.getKey());
        }
      }
    }
    BarRenderer r = new BarRenderer();
    r.setBarPainter(new StandardBarPainter());
    r.setShadowVisible(false);
    r.setDefaultItemLabelGenerator(new org.jfree.chart.labels.StandardCategoryItemLabelGenerator("{2}",
        new DecimalFormat("#,##0")));
    r.setDefaultItemLabelsVisible(true);
    CategoryPlot plot = new CategoryPlot(data, new CategoryAxis(), y, r);
    for (int i = 0; i < data.getRowCount(); i++) {
      r.setSeriesPaint(i, COLOURS.getOrDefault(String.valueOf(data.getRowKey(i)), Color.DARK_GRAY));
    }
    plot.setBackgroundPaint(Color.WHITE);
    plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
    if (!Double.isNaN(target)) {
      ValueMarker m = new ValueMarker(target, Color.RED, new BasicStroke(1.5f, BasicStroke.CAP_BUTT,
          BasicStroke.JOIN_MITER, 10f, new float[] {6f, 4f}, 0f));
      m.setLabel("target ≤ " + new DecimalFormat("#,##0").format(target));
      m.setLabelAnchor(RectangleAnchor.TOP_RIGHT);
      m.setLabelTextAnchor(TextAnchor.BOTTOM_RIGHT);
      plot.addRangeMarker(m);
    }
    ChartUtils.saveChartAsPNG(png.toFile(), new JFreeChart(title, JFreeChart.DEFAULT_TITLE_FONT, plot, true),
        WIDTH, HEIGHT);
  }

  private static void style(XYPlot plot) {
    plot.setBackgroundPaint(Color.WHITE);
    plot.setDomainGridlinePaint(Color.LIGHT_GRAY);
    plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
  }

  /** Tick k of the percentile axis is 1 − 10^−k: 0 %, 90 %, 99 %, 99.9 %, 99.99 %, 99.999 %. */
  private static final class PercentileFormat extends NumberFormat {
    @Override
    public StringBuffer format(double v, StringBuffer sb, FieldPosition pos) {
      long k = Math.round(v);
      return sb.append(k == 0 ? "0%" : new DecimalFormat("0.#####").format(100 * (1 - Math.pow(10, -k))) + "%");
    }

    @Override
    public StringBuffer format(long v, StringBuffer sb, FieldPosition pos) {
      return format((double) v, sb, pos);
    }

    @Override
    public Number parse(String s, ParsePosition pos) {
      throw new UnsupportedOperationException("display only");
    }
  }
}
